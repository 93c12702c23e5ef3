package settings

import "testing"

// defaultSettings are the default settings (no file, no flags) for a test
// run in a new working directory with its own cache directory.
func defaultSettings(t *testing.T) *Settings {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	var s Settings
	if err := Load(&s, &s, "", nil, nil); err != nil {
		t.Fatal(err)
	}
	return &s
}
