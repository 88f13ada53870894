// SPDX-License-Identifier: Apache-2.0

// Package syncx holds the synchronization helpers nrikit's packages share: a
// barrier that keeps shared and exclusive holders apart without starving
// either, and the small waits on a channel, a context or a WaitGroup that
// would otherwise be written out with select at each site.
package syncx
