package userfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/userfile"
)

// TestRead: regular files are read within their limit; devices, pipes,
// directories and files over the limit are refused before they are read,
// the limit's setting named.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"queries": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		limit   userfile.Limit
		want    string
		wantErr error
		errText []string
	}{
		{name: "regular", path: small, limit: userfile.Default, want: `{"queries": []}`},
		{name: "symlink to a regular file", path: link, limit: userfile.Default, want: `{"queries": []}`},
		{name: "over the limit", path: small, limit: userfile.Limit{Bytes: 4, Setting: "dataset.max_bytes"},
			wantErr: userfile.ErrTooLarge, errText: []string{"15 bytes, more than 4", "set dataset.max_bytes to raise it"}},
		{name: "over a fixed limit", path: small, limit: userfile.Limit{Bytes: 4},
			wantErr: userfile.ErrTooLarge, errText: []string{"a fixed limit"}},
		{name: "/dev/zero", path: "/dev/zero", limit: userfile.Default,
			wantErr: userfile.ErrNotRegular, errText: []string{"/dev/zero", "a character device", "give a file"}},
		{name: "named pipe", path: fifo, limit: userfile.Default,
			wantErr: userfile.ErrNotRegular, errText: []string{"a named pipe"}},
		{name: "directory", path: dir, limit: userfile.Default, errText: []string{"is a directory"}},
		{name: "missing", path: filepath.Join(dir, "none"), limit: userfile.Default, wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := userfile.Read(tt.path, tt.limit)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v: the file was read", d)
			}
			if tt.wantErr == nil && tt.errText == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("Read = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Read = %q, no error", got)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			for _, w := range tt.errText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestOpen: Open keeps directories (folders are read by their callers)
// and refuses special files without opening them (a FIFO would block).
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	f, err := userfile.Open(dir)
	if err != nil {
		t.Fatalf("Open(dir): %v", err)
	}
	f.Close()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := userfile.Open(fifo); !errors.Is(err, userfile.ErrNotRegular) {
		t.Errorf("Open(fifo) = %v, want ErrNotRegular", err)
	}
	if err := userfile.Check("/dev/null"); !errors.Is(err, userfile.ErrNotRegular) {
		t.Errorf("Check(/dev/null) = %v, want ErrNotRegular", err)
	}
}
