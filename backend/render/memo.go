package render

import (
	"bytes"
	"encoding/json"
	"sync"
)

// Func turns a trial's parameters into the bytes of a service's config
// file.
type Func func(params map[string]any) ([]byte, error)

// Memo returns a Func that renders each distinct params once: a sweep
// renders a trial's config to check it, to resolve the settings the
// replay fuses with, to record it and to apply it. Params are keyed by
// their JSON encoding (map keys sorted); params that do not encode are
// rendered every time. At most max results are kept (the cache is
// emptied when full). The result is a copy: callers may change it. It is
// safe for concurrent use when r is.
func Memo(r Func, max int) Func {
	type result struct {
		data []byte
		err  error
	}
	var (
		mu    sync.Mutex
		cache = map[string]result{}
	)
	return func(params map[string]any) ([]byte, error) {
		key, err := json.Marshal(params)
		if err != nil {
			return r(params)
		}
		mu.Lock()
		res, ok := cache[string(key)]
		mu.Unlock()
		if !ok {
			res.data, res.err = r(params)
			mu.Lock()
			if len(cache) >= max {
				clear(cache)
			}
			cache[string(key)] = res
			mu.Unlock()
		}
		return bytes.Clone(res.data), res.err
	}
}

// Described is a rendered config as a trial's record keeps it (every
// backend kind's Describe): the bytes, or the reason rendering failed.
func Described(data []byte, err error) string {
	if err != nil {
		return "render error: " + err.Error()
	}
	return string(data)
}
