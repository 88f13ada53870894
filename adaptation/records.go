// SPDX-License-Identifier: Apache-2.0

// ContainerRecord: which plugin changed what in a container, kept for a bounded number of
// containers by internal/records, and the option that turns records on.

package adaptation

import (
	"fmt"
	"time"

	"github.com/nrikit/nrikit/internal/records"
)

// MaxContainerRecords bounds WithContainerRecords: each record kept costs
// a few hundred bytes and the owners' tables.
const MaxContainerRecords = 1 << 16

// DefaultContainerRecords is how many containers' records are kept unless
// the runtime says otherwise: more than a node's containers (kubelet runs
// at most 110 pods by default), so that "which plugin changed this
// container" has an answer on a node where nobody turned records on
// before the incident. Slots for them are allocated at New (about 100 KiB);
// recording a creation allocates nothing of its own.
const DefaultContainerRecords = 512

// WithContainerRecords keeps, for the newest n live containers, the record
// of which plugin set which field and which validators approved, and the
// updates plugins made since (see Adaptation.ContainerRecord). A record
// goes when its container is removed; when n containers are recorded, the
// oldest live one's record makes room for a new one. Without this option
// DefaultContainerRecords are kept; 0 keeps none; n must be within 0 and
// MaxContainerRecords.
func WithContainerRecords(n int) Option {
	return func(o *options) error {
		if n < 0 || n > MaxContainerRecords {
			return fmt.Errorf("nrikit: container_records must be within 0 and %d, got %d", MaxContainerRecords, n)
		}
		o.containerRecords = n
		return nil
	}
}

// A record lists at most MaxRecordFields fields of a creation and of each
// update (the first in field order, then by key), and cuts keys longer than
// MaxRecordKeyBytes (ending them in " [cut]"), so that reading a record
// costs little whatever a plugin set.
const (
	MaxRecordFields   = 512
	MaxRecordKeyBytes = 256
)

// ContainerRecord says who changed a live container: which plugin set which
// field at its creation, which validators approved, and the updates plugins
// made since.
type ContainerRecord struct {
	ID      string    `json:"id"`
	Name    string    `json:"name,omitempty"`
	PodID   string    `json:"pod_id,omitempty"`
	Created time.Time `json:"created"` // when CreateContainer returned it
	// Fields are the fields the plugins set or removed at its creation, in
	// field order, then by key: the first MaxRecordFields.
	Fields []FieldOwner `json:"fields"`
	// FieldsOmitted counts the fields left out beyond MaxRecordFields.
	FieldsOmitted int              `json:"fields_omitted,omitempty"`
	Validation    ValidationRecord `json:"validation"`
	// Updates are the updates plugins made to it since, oldest first; the
	// last 32 are kept.
	Updates []UpdateRecord `json:"updates"`
}

// FieldOwner is one field, or one entry of a map or list field, and the
// plugin that set it.
type FieldOwner struct {
	// Field names the field as api.Field does: "Annotations", "Env",
	// "MemLimit", ...
	Field string `json:"field"`
	// Key is the entry of a map or list field: an annotation's or
	// environment variable's name, a mount's destination, a device's path;
	// "" for a simple field.
	Key    string `json:"key,omitempty"`
	Plugin string `json:"plugin"`
	// Removed: the plugin removed the value rather than set it.
	Removed bool `json:"removed,omitempty"`
}

// ValidationRecord is what approved a creation. Creations a validator
// rejected fail and are not recorded.
type ValidationRecord struct {
	DefaultValidator bool `json:"default_validator"` // the default validator approved it
	// Validators are the validator plugins that approved it, in dispatch
	// order.
	Validators []string `json:"validators"`
	// DryRun are the verdicts of the validators run dry (ValidationDryRun,
	// and the default validator's dry_run), as they came: a plugin's after
	// the creation returned.
	DryRun []DryRunVerdict `json:"dry_run,omitempty"`
}

// Sources of an UpdateRecord.
const (
	UpdateByReply = "UpdateContainer" // a plugin's reply to UpdateContainer
	// UpdateByCreation: a plugin's reply to the CreateContainer of another
	// container.
	UpdateByCreation = "CreateContainer"
	UpdateByPlugin   = "UpdateContainers" // an update a plugin sent on its own (unsolicited)
	// UpdateByStop: a plugin's reply to the StopContainer of another
	// container.
	UpdateByStop = "StopContainer"
)

// UpdateRecord is one plugin's update of a recorded container.
type UpdateRecord struct {
	Time   time.Time    `json:"time"`
	Source string       `json:"source"` // UpdateByReply, UpdateByCreation, UpdateByStop or UpdateByPlugin
	Plugin string       `json:"plugin"`
	Fields []FieldOwner `json:"fields"` // as ContainerRecord's
	// FieldsOmitted counts the fields left out beyond MaxRecordFields.
	FieldsOmitted int `json:"fields_omitted,omitempty"`
	// Failed: the runtime reported the unsolicited update failed.
	Failed bool `json:"failed,omitempty"`
}

// ContainerRecord returns the record of the live container id, if records
// are on (WithContainerRecords) and it was created since, and not yet
// removed or evicted by newer ones.
func (a *Adaptation) ContainerRecord(id string) (ContainerRecord, bool) {
	rec, ok := a.records.Get(id)
	if !ok {
		return ContainerRecord{}, false
	}
	return containerRecord(rec), true
}

// containerRecord is rec as ContainerRecord reports it, field by field.
func containerRecord(rec records.Record) ContainerRecord {
	out := ContainerRecord{
		ID: rec.ID, Name: rec.Name, PodID: rec.PodID, Created: rec.Created,
		Fields: fieldOwners(rec.Fields), FieldsOmitted: rec.FieldsOmitted,
		Validation: ValidationRecord{DefaultValidator: rec.Validation.DefaultValidator, Validators: rec.Validation.Validators, DryRun: dryRunVerdicts(rec.Validation.DryRun)},
		Updates:    make([]UpdateRecord, len(rec.Updates)),
	}
	for i, u := range rec.Updates {
		out.Updates[i] = UpdateRecord{Time: u.Time, Source: string(u.Source), Plugin: u.Plugin,
			Fields: fieldOwners(u.Fields), FieldsOmitted: u.FieldsOmitted, Failed: u.Failed}
	}
	return out
}

func fieldOwners(fields []records.FieldOwner) []FieldOwner {
	out := make([]FieldOwner, len(fields))
	for i, f := range fields {
		out[i] = FieldOwner{Field: f.Field, Key: f.Key, Plugin: f.Plugin, Removed: f.Removed}
	}
	return out
}
