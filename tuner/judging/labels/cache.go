package labels

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// cacheRow is one cached model answer: the table fusiontune_judge_cache.
type cacheRow struct {
	Key        string  `gorm:"column:cache_key;type:varchar(64);primaryKey"`
	Model      string  `gorm:"column:model;type:text;not null"`
	PromptHash string  `gorm:"column:prompt_hash;type:varchar(64);not null"`
	Grade      int     `gorm:"column:grade;not null"`
	Rationale  string  `gorm:"column:rationale;type:text;not null;default:''"`
	Confidence float64 `gorm:"column:confidence;not null;default:0"`
	TimeNS     int64   `gorm:"column:time_ns;not null"`
}

func (cacheRow) TableName() string { return "fusiontune_judge_cache" }

// CacheEntry is a model's answer for one (query text, document text, model,
// prompt) combination, kept so that judging the same pair again costs no
// call.
type CacheEntry struct {
	// Key is CacheKey of the combination.
	Key string
	// Model and PromptHash name the model and the prompt template's hash.
	Model, PromptHash string
	// Grade, Rationale and Confidence are the answer.
	Grade      int
	Rationale  string
	Confidence float64
	// Time is when the answer was given.
	Time time.Time
}

// CacheKey returns the cache key of a (query text, document text, model,
// prompt hash) combination: the hex SHA-256 of the four, length-prefixed.
func CacheKey(queryText, docText, model, promptHash string) string {
	h := sha256.New()
	for _, s := range []string{queryText, docText, model, promptHash} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cacheChunk bounds the keys of one lookup query.
const cacheChunk = 500

// CacheLookup returns the cached answers for those of keys the cache holds.
func (s *Store) CacheLookup(ctx context.Context, keys []string) (map[string]CacheEntry, error) {
	out := map[string]CacheEntry{}
	for start := 0; start < len(keys); start += cacheChunk {
		var rows []cacheRow
		chunk := keys[start:min(start+cacheChunk, len(keys))]
		if err := s.db.WithContext(ctx).Where("cache_key IN ?", chunk).Find(&rows).Error; err != nil {
			return nil, fmt.Errorf("judge cache lookup in %s: %w", s.Location.Redacted, err)
		}
		for _, r := range rows {
			out[r.Key] = CacheEntry{Key: r.Key, Model: r.Model, PromptHash: r.PromptHash, Grade: r.Grade,
				Rationale: r.Rationale, Confidence: r.Confidence, Time: time.Unix(0, r.TimeNS).UTC()}
		}
	}
	return out, nil
}

// CachePut stores answers in one transaction; a key already cached keeps
// its first answer.
func (s *Store) CachePut(ctx context.Context, entries []CacheEntry) error {
	if len(entries) == 0 {
		return nil
	}
	rows := make([]cacheRow, len(entries))
	for i, e := range entries {
		if len(e.Key) != 64 {
			return fmt.Errorf("judge cache: %w: key %q is not a CacheKey", ErrInvalid, e.Key)
		}
		if e.Grade < 0 || e.Grade > MaxGrade {
			return fmt.Errorf("judge cache: %w: grade %d out of range 0..%d", ErrInvalid, e.Grade, MaxGrade)
		}
		t := e.Time
		if t.IsZero() {
			t = time.Now()
		}
		rows[i] = cacheRow{Key: e.Key, Model: e.Model, PromptHash: e.PromptHash, Grade: e.Grade,
			Rationale: e.Rationale, Confidence: e.Confidence, TimeNS: t.UnixNano()}
	}
	err := s.retry(ctx, func(tx *gorm.DB) error {
		return tx.Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(rows, appendBatch).Error
	})
	if err != nil {
		return fmt.Errorf("judge cache put in %s: %w", s.Location.Redacted, err)
	}
	return nil
}
