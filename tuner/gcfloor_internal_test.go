package tuner

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// heapGoal is the garbage collector's heap goal after a collection.
func heapGoal() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestGCFloor: while GCFloor holds, the collector's goal is at least
// twice the floor; released, it drops by about that much again.
func TestGCFloor(t *testing.T) {
	release := GCFloor()
	held := heapGoal()
	for deadline := time.Now().Add(10 * time.Second); held < 2*gcFloorBytes && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // the block is made in the background
		held = heapGoal()
	}
	release()
	after := heapGoal()
	if held < 2*gcFloorBytes {
		t.Errorf("heap goal %d MB with the floor, want >= %d MB", held>>20, 2*gcFloorBytes>>20)
	}
	if held < after+gcFloorBytes {
		t.Errorf("heap goal %d MB with the floor, %d MB after its release: want it %d MB higher", held>>20, after>>20, gcFloorBytes>>20)
	}
}
