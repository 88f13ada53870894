// SPDX-License-Identifier: Apache-2.0

//go:build !unix

// The same where there are no unix permissions.

package accept

import "os"

// ownStrictDir is false where file ownership is not known: an existing
// directory is left as it is.
func ownStrictDir(os.FileInfo) bool { return false }

// unsearchable is "" where permissions are not known: nothing is refused.
func unsearchable(os.FileInfo, int) string { return "" }
