// Package weaviatetest starts a throwaway weaviate-server for tests: a
// fresh temporary PERSISTENCE_DATA_PATH, free loopback ports, readiness on
// /v1/.well-known/ready, and kill plus removal at cleanup.
//
// The binary is found through the WEAVIATE_BIN environment variable, then
// $(go env GOPATH)/bin/weaviate-server, then PATH. Tests skip with a clear
// message when it is absent, and fail instead under CI=true (.ci/run
// builds it).
//
// Imports of ours: backend/corpus, backend/embed, backend/weaviate.
package weaviatetest
