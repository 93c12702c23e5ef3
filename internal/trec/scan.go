package trec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// maxLine is the longest run line ScanRun reads, its newline included.
const maxLine = 256 * 1024

// chunkSize is how much of a run one worker parses at a time.
const chunkSize = 512 << 10

// chunk is a piece of a run cut at a line end, as a worker parsed it:
// the blocks of contiguous lines of one query, in order, up to the first
// line that failed.
type chunk struct {
	seq     int
	data    []byte
	lines   int     // lines in data (every line parsed when bad is 0)
	blocks  []block // the lines before the bad one, by query
	tag     string  // the sixth field of the first parsed line ("": none)
	bad     int     // 1-based line in data that failed (0: none)
	long    bool    // the bad line is longer than maxLine
	readErr error   // reading stopped here
	slab    []Result
}

// block is contiguous lines of one query within a chunk: their results
// are slab[from:to].
type block struct {
	qid      string
	from, to int
}

// scanChunks is ScanRun on every core: a reader cuts the input into
// chunks at line ends, workers parse them, and the chunks are handed on
// in input order, a query's block continued across chunk boundaries, so
// that fn sees what a sequential scan gives it, and the first error in
// input order ends the scan with the message the sequential parser
// writes for it. With transient, the document ids view the chunks, which
// are reused once fn has seen their last block.
func scanChunks(r io.Reader, file string, transient bool, fn func(qid string, results []Result) error) (string, error) {
	workers := runtime.GOMAXPROCS(0)
	todo := make(chan *chunk)
	done := make(chan *chunk, workers+2)
	stop := make(chan struct{})
	slots := make(chan struct{}, workers+2) // chunks in flight: memory stays bounded
	free := make(chan *chunk, workers+4)    // chunks to reuse, kept across collections
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the reader
		defer wg.Done()
		defer close(todo)
		var carry []byte
		for seq := 0; ; seq++ {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			var c *chunk
			select {
			case c = <-free:
			default:
				c = newChunk()
			}
			buf := c.data[:chunkSize]
			n := copy(buf, carry)
			m, err := io.ReadFull(r, buf[n:])
			n += m
			c.seq = seq
			end := err == io.EOF || err == io.ErrUnexpectedEOF
			if err != nil && !end {
				c.readErr = err
			}
			cut := n
			if !end && c.readErr == nil {
				if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
					cut = i + 1
				}
			}
			c.data = buf[:cut]
			carry = append(carry[:0], buf[cut:n]...)
			select {
			case todo <- c:
			case <-stop:
				return
			}
			if end || c.readErr != nil {
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var arena []byte
			for c := range todo {
				parseChunk(c, file, &arena, transient)
				select {
				case done <- c:
				case <-stop:
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	tag, err := mergeChunks(done, file, transient, fn, slots, free)
	close(stop)
	for range done { // let the reader and workers end
	}
	return tag, err
}

// newChunk returns an empty chunk, its result slab sized for lines of
// 32 bytes.
func newChunk() *chunk {
	return &chunk{data: make([]byte, chunkSize), slab: make([]Result, 0, chunkSize/32)}
}

// parseChunk parses the lines of c.data with relative line numbers,
// interning document ids in *arena (with transient, leaving them in
// c.data), until a line fails.
func parseChunk(c *chunk, file string, arena *[]byte, transient bool) {
	p := runParser{file: file, transient: transient}
	if c.seq > 0 {
		p.line = 1 // line 1 alone may start with a byte order mark
	}
	first := p.line
	p.arena = *arena
	data := c.data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		p.line++
		if len(line) > maxLine || i < 0 && len(line) >= maxLine {
			c.bad, c.long = p.line-first, true
			break
		}
		qid, tag, res, err := p.parse(line)
		if err != nil {
			c.bad = p.line - first
			break
		}
		if qid == nil {
			continue
		}
		if c.tag == "" {
			c.tag = string(tag)
		}
		if k := len(c.blocks) - 1; k < 0 || c.blocks[k].qid != string(qid) {
			c.blocks = append(c.blocks, block{qid: string(qid), from: len(c.slab)})
		}
		c.slab = append(c.slab, res)
		c.blocks[len(c.blocks)-1].to = len(c.slab)
	}
	c.lines = p.line - first
	*arena = p.arena
}

// mergeChunks hands the parsed chunks' blocks to fn in input order (a
// query's block continues across chunks), freeing a slot per chunk and
// returning the chunk to free when that has room (with transient, once
// fn has seen its last block: its document ids view it). It returns the
// run's tag, or the first error in input order.
func mergeChunks(done <-chan *chunk, file string, transient bool, fn func(qid string, results []Result) error, slots <-chan struct{}, free chan<- *chunk) (string, error) {
	var (
		tag     string
		base    int // lines before the next chunk
		next    int
		waiting = map[int]*chunk{}
		qid     string
		pending []Result
		held    []*chunk // chunks whose document ids pending views
	)
	recycle := func(c *chunk) {
		*c = chunk{data: c.data, blocks: c.blocks[:0], slab: c.slab[:0]}
		select {
		case free <- c:
		default: // a long query held more chunks than are reused
		}
	}
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := fn(qid, pending)
		pending = pending[:0]
		for _, c := range held {
			recycle(c)
		}
		held = held[:0]
		return err
	}
	for c := range done {
		waiting[c.seq] = c
		for {
			c, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			<-slots
			if tag == "" {
				tag = c.tag
			}
			for _, b := range c.blocks {
				if b.qid != qid {
					if err := flush(); err != nil {
						return "", err
					}
					qid = b.qid
				}
				pending = append(pending, c.slab[b.from:b.to]...)
			}
			if c.bad > 0 {
				return "", c.errAt(file, base)
			}
			base += c.lines
			if c.readErr != nil {
				return "", fmt.Errorf("%s:%d: %w", file, base+1, c.readErr)
			}
			if transient && len(pending) > 0 {
				held = append(held, c)
			} else {
				recycle(c) // the document ids are interned elsewhere, or no longer viewed
			}
		}
	}
	if err := flush(); err != nil {
		return "", err
	}
	return tag, nil
}

// errAt is the error of c's bad line, the lines before c numbering base:
// the sequential parser's message for it.
func (c *chunk) errAt(file string, base int) error {
	line := base + c.bad
	if c.long {
		return fmt.Errorf("%s:%d: line longer than %d bytes", file, line, maxLine)
	}
	data := c.data
	for range c.bad - 1 {
		data = data[bytes.IndexByte(data, '\n')+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	}
	p := runParser{file: file, line: line}
	if _, _, _, err := p.parse(data); err != nil {
		return err
	}
	return errors.New("trec: a line failed in parallel but not again") // cannot happen
}
