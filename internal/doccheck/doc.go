// SPDX-License-Identifier: Apache-2.0

// Package doccheck checks the repository's Markdown (README.md and docs/) the
// way a reader follows it: every relative link names a file that exists, every
// #anchor names a heading of its target by GitHub's slug rules, and every
// pkg.go.dev link into this module names a package, an identifier or a godoc
// heading that exists. Fenced code blocks and code spans are not links.
//
// It lives in a package of its own, rather than in a test of one of the
// packages it documents, because the docs belong to the whole module; its test
// runs with the others under `go test ./...` and so in `make test`.
package doccheck
