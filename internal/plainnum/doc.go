// Package plainnum reads numbers written the one plain way a user file or
// flag may write them: decimal digits with an optional leading minus sign
// (and, for a float, a point and an exponent). strconv alone also takes a
// leading plus sign, digit-separating underscores ("1_000"), hexadecimal,
// octal and binary forms ("0x10", "0x1p3"), "Inf" and "NaN"; none of them
// is refused there, so a typo or a value from another tool's syntax would
// be read silently as some other number. Surrounding space is refused too:
// callers that allow it (a formula's terms) trim it themselves.
//
// Imports of ours: none.
package plainnum
