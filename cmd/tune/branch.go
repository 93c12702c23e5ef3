package main

import (
	"os"
	"os/exec"
	"strings"
)

// currentBranch is flag, else the CI's branch variables (GITHUB_HEAD_REF,
// GITHUB_REF_NAME, CI_COMMIT_REF_NAME), else git's current branch, else "".
func currentBranch(flag string) string {
	if flag != "" {
		return flag
	}
	if b := firstEnv("GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME"); b != "" {
		return b
	}
	out, err := exec.Command("git", "rev-parse", "--abbrev-ref", "HEAD").Output()
	if err != nil {
		return ""
	}
	if b := strings.TrimSpace(string(out)); b != "HEAD" {
		return b
	}
	return ""
}

// baseBranch is flag, else the CI's target-branch variables
// (GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME), else current.
func baseBranch(flag, current string) string {
	if flag != "" {
		return flag
	}
	if b := firstEnv("GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"); b != "" {
		return b
	}
	return current
}

// firstEnv is the first non-empty of the environment variables names.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}
