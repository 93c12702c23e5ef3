package runs

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncDir makes the files of dir durable: on Linux one syncfs(2) of the
// file system holding dir covers every file written so far.
func syncDir(dir string, _ [][2]string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}
