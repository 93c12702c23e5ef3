package promote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/adapt"
)

// ErrPolicyNotPromotable refuses a fusion policy whose cross-validated
// evaluation did not beat the best global setting significantly.
var ErrPolicyNotPromotable = errors.New("policy not promotable")

// PolicyConfig is what PolicyInstall needs, as plain values.
type PolicyConfig struct {
	// ConfigPath is the production engine config (backend.config); it
	// must exist: the policy is set on it.
	ConfigPath string
	// Store holds the run; the backups and promotions.jsonl live in it.
	Store *runs.Store
	Run   *runs.Run
	// Collection is the replay group the policy was learned on
	// (AdaptReport.Collection): the smoke check replays the policy on it.
	Collection string
	Policy     *fusion.Policy
	// SmokeQueries is how many of the collection's queries the smoke check
	// searches (0: DefaultSmokeQueries).
	SmokeQueries int
	NewVerify    VerifyFunc
	Log          io.Writer
}

// PolicyInstall promotes a fusion policy: it refuses one whose evaluation
// is missing or not promotable (no force: a policy that does not beat the
// best global setting on held-out folds is never promoted), writes the
// policy next to the production config as policy-<sha256 prefix>.json,
// sets fusion.policy in a copy of the production config to its absolute
// path, and installs that copy like any promotion (Promoter: backup, atomic
// write, restart, health check, a smoke check that the served rankings
// equal the policy's replay on a sample of the collection's queries,
// restore on failure). `tune rollback` undoes it like any promotion.
func PolicyInstall(ctx context.Context, c PolicyConfig) (Promotion, error) {
	p := c.Policy
	if p.Evaluation == nil || !p.Evaluation.Promotable {
		why := "it has no cross-validated evaluation"
		if p.Evaluation != nil {
			why = p.Evaluation.Decision
		}
		return Promotion{}, fmt.Errorf("%w: %s", ErrPolicyNotPromotable, why)
	}
	old, err := os.ReadFile(c.ConfigPath)
	if err != nil {
		return Promotion{}, &inputerr.Error{Err: fmt.Errorf("backend.config: the production config must exist to set fusion.policy on it: %w", err)}
	}
	policyPath, err := writePolicyFile(c.ConfigPath, p)
	if err != nil {
		return Promotion{}, err
	}
	config, err := setFusionPolicy(old, policyPath)
	if err != nil {
		return Promotion{}, &inputerr.Error{Err: fmt.Errorf("%s: %w", c.ConfigPath, err)}
	}
	want, err := adapt.PolicyResults(c.Run, c.Collection, p)
	if err != nil {
		return Promotion{}, err
	}
	texts, err := adapt.CollectionTexts(c.Run, c.Collection)
	if err != nil {
		return Promotion{}, err
	}
	n := c.SmokeQueries
	if n <= 0 {
		n = DefaultSmokeQueries
	}
	pr, cleanup, err := NewProduction(c.ConfigPath, c.Store, c.NewVerify, policySmoke(want, texts, n))
	if err != nil {
		return Promotion{}, err
	}
	defer cleanup()
	if c.Log != nil {
		fmt.Fprintf(c.Log, "promote policy: %s (held-out %s %.4f vs global %.4f, p = %.3g)\n", policyPath, p.Metric,
			p.Evaluation.Policy, p.Evaluation.Global, p.Evaluation.P)
	}
	return pr.Promote(ctx, config, Promotion{Run: c.Run.ID(), Trial: "policy " + filepath.Base(policyPath) + " (" + c.Collection + ")"})
}

// writePolicyFile writes the policy beside the production config at
// configPath, named by its content's hash, and returns its path.
func writePolicyFile(configPath string, p *fusion.Policy) (string, error) {
	data, err := p.Encode()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	abs, err := filepath.Abs(configPath)
	if err != nil {
		return "", err
	}
	policyPath := filepath.Join(filepath.Dir(abs), "policy-"+hex.EncodeToString(sum[:6])+".json")
	if err := atomicfile.Write(policyPath, data, 0o644); err != nil {
		return "", fmt.Errorf("promote policy: %w", err)
	}
	return policyPath, nil
}

// policySmoke is the smoke check of a promoted policy: the first n
// answered queries of want (the policy's replay, texts their query texts)
// must be served with the same ranking.
func policySmoke(want []runs.QueryResult, texts []string, n int) func(context.Context, backend.Searcher) error {
	return func(ctx context.Context, s backend.Searcher) error {
		checked := 0
		for i := 0; i < len(want) && checked < n; i++ {
			w := want[i]
			if w.Error != "" || len(w.Top) == 0 {
				continue
			}
			checked++
			resp, err := s.Search(ctx, backend.SearchRequest{Query: texts[i], K: len(w.Top)})
			if err != nil {
				return fmt.Errorf("smoke: query %s: %w", w.QueryID, err)
			}
			for j, top := range w.Top {
				if j >= len(resp.Hits) || resp.Hits[j].DocID != top.DocID {
					return fmt.Errorf("smoke: query %s: the served ranking differs from the policy's replay at rank %d", w.QueryID, j+1)
				}
			}
		}
		return nil
	}
}

// setFusionPolicy returns the YAML config with fusion.policy set to path
// (the fusion mapping created when missing), other keys and comments kept.
func setFusionPolicy(config []byte, path string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(config, &doc); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("not a mapping")
	}
	fusionNode := child(root, "fusion")
	if fusionNode == nil {
		fusionNode = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "fusion"}, fusionNode)
	}
	if fusionNode.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%d:%d: fusion: not a mapping", fusionNode.Line, fusionNode.Column)
	}
	value := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: path}
	if v := child(fusionNode, "policy"); v != nil {
		*v = *value
	} else {
		fusionNode.Content = append(fusionNode.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "policy"}, value)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// child returns the value of key in mapping m, nil when absent.
func child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
