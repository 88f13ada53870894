//go:build !unix

package adaptation

import "os"

// ownStrictDir is false where file ownership is not known: an existing
// directory is left as it is.
func ownStrictDir(os.FileInfo) bool { return false }
