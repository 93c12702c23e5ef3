//go:build !linux

package runs

import "os"

// syncDir makes the pending temporaries and dir itself durable, one fsync
// each (no syncfs outside Linux).
func syncDir(dir string, pending [][2]string) error {
	for _, p := range pending {
		f, err := os.Open(p[0])
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
