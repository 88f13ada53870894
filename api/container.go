// SPDX-License-Identifier: Apache-2.0

package api

import "time"

// The container's timestamps travel as nanoseconds; these give them as
// times counted from the zero time.Time, as the reference does (not from the
// Unix epoch). A nil container gives the zero time.

// GetCreatedAtTime returns CreatedAt as a time.Time.
func (x *Container) GetCreatedAtTime() time.Time { return nanosTime(x.GetCreatedAt()) }

// GetStartedAtTime returns StartedAt as a time.Time.
func (x *Container) GetStartedAtTime() time.Time { return nanosTime(x.GetStartedAt()) }

// GetFinishedAtTime returns FinishedAt as a time.Time.
func (x *Container) GetFinishedAtTime() time.Time { return nanosTime(x.GetFinishedAt()) }

func nanosTime(ns int64) time.Time {
	return time.Time{}.Add(time.Duration(ns))
}
