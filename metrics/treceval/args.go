package treceval

// SplitGluedArgs splits trec_eval's glued flags ("-l2", "-mP.10") into the
// flag and its value, so a flag package can read them; everything from
// "--" on is left as it is.
func SplitGluedArgs(args []string) []string {
	out := make([]string, 0, len(args)+4)
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && (a[1] == 'm' || a[1] == 'l') && a[2] != '=' {
			out = append(out, a[:2], a[2:])
			continue
		}
		out = append(out, a)
	}
	return out
}
