package cli

import "testing"

func TestResumeCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"shipped shortlist", nil, "tune --resume RUN"},
		{"user's flags kept", []string{"--experiments", "x.json", "--runs-dir", "/tmp/r"}, "tune --experiments x.json --runs-dir /tmp/r --resume RUN"},
		{"earlier resume dropped", []string{"--resume", "OLD", "--experiments=x.yaml", "--resume=OLD2"}, "tune --experiments=x.yaml --resume RUN"},
		{"quoted when needed", []string{"--config", "my settings.yaml", "--experiments", "it's.json"}, `tune --config 'my settings.yaml' --experiments 'it'\''s.json' --resume RUN`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ResumeCommand(tc.args, "RUN"); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
