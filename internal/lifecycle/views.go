// SPDX-License-Identifier: Apache-2.0

// What each plugin has been told of one pod or container, kept in the record.

package lifecycle

// views is what each plugin has been told about one pod or container. A
// node has a few plugins, so a short list searched in order does better
// than a map, and the first few entries live in the record itself: a new
// record costs no allocation of its own for them.
type views[P comparable] struct {
	list []view[P]
	few  [4]view[P]
}

type view[P comparable] struct {
	p P
	s seen
}

func (v *views[P]) get(p P) (seen, bool) {
	for _, e := range v.list {
		if e.p == p {
			return e.s, true
		}
	}
	return 0, false
}

func (v *views[P]) set(p P, s seen) {
	for i := range v.list {
		if v.list[i].p == p {
			v.list[i].s = s
			return
		}
	}
	if v.list == nil {
		v.list = v.few[:0]
	}
	v.list = append(v.list, view[P]{p, s})
}

// add marks s as seen by p, besides what p saw before.
func (v *views[P]) add(p P, s seen) {
	old, _ := v.get(p)
	v.set(p, old|s)
}

func (v *views[P]) remove(p P) {
	for i := range v.list {
		if v.list[i].p == p {
			last := len(v.list) - 1
			copy(v.list[i:], v.list[i+1:])
			v.list[last] = view[P]{} // let p be collected
			v.list = v.list[:last]
			return
		}
	}
}
