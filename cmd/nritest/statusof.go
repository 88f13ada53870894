// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/nrikit/nrikit/adaptation"
)

// statusOfTimeout bounds --status-of's whole exchange with the runtime.
const statusOfTimeout = 10 * time.Second

// onlyJSONWithStatusOf refuses the flags that shape a run: --status-of
// runs nothing.
func onlyJSONWithStatusOf(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "status-of" && f.Name != "container" && f.Name != "json" && f.Name != "v" && err == nil {
			err = fmt.Errorf("--%s does not apply to --status-of", f.Name)
		}
	})
	return err
}

// printStatusOf gets GET /v1/status from the status socket at path and
// prints it, as served with asJSON, else as the report's STATUS section
// with the plugins; with a container ID, GET /v1/containers/ID instead,
// the container's record. It returns exitFailed when the runtime cannot be
// reached or does not answer with a status (or a record).
func printStatusOf(ctx context.Context, path, container string, asJSON bool, stdout, stderr io.Writer) int {
	what, into := "/v1/status", any(&adaptation.Status{})
	if container != "" {
		what, into = "/v1/containers/"+url.PathEscape(container), &adaptation.ContainerRecord{}
	}
	body, err := fetchStatus(ctx, path, what)
	if err != nil {
		fmt.Fprintf(stderr, "nritest: --status-of %s: %v\n", path, err)
		return exitFailed
	}
	if err := json.Unmarshal(body, into); err != nil {
		fmt.Fprintf(stderr, "nritest: --status-of %s: GET %s: not what nrikit serves: %v\n", path, what, err)
		return exitFailed
	}
	switch v := into.(type) {
	case *adaptation.Status:
		if asJSON {
			_, err = stdout.Write(body)
		} else {
			err = writeStatusText(stdout, v)
		}
	case *adaptation.ContainerRecord:
		if asJSON {
			_, err = stdout.Write(body)
		} else {
			err = writeTable(stdout, func(tw io.Writer) { recordText(tw, v) })
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "nritest: writing the status: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func fetchStatus(ctx context.Context, path, what string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, statusOfTimeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://nri"+what, nil)
	if err != nil {
		return nil, err
	}
	rsp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer rsp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(rsp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	switch {
	case rsp.StatusCode == http.StatusNotFound && what != "/v1/status":
		return nil, fmt.Errorf("no record of that container (records are kept for the newest live containers created since the runtime started, container_records)")
	case rsp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET %s answered %s", what, rsp.Status)
	}
	return body, nil
}

// recordText writes a container's record: who set each field at its
// creation, what approved it, and the updates since.
func recordText(tw io.Writer, rec *adaptation.ContainerRecord) {
	fmt.Fprintf(tw, "nritest: record of container %s (%s) of pod %s, created %s\n\n", rec.ID, orDash(rec.Name), orDash(rec.PodID),
		rec.Created.Format(sinceLayout))
	fmt.Fprintln(tw, "FIELDS SET AT CREATION")
	fmt.Fprintln(tw, "FIELD\tKEY\tPLUGIN")
	if len(rec.Fields) == 0 {
		fmt.Fprintln(tw, "(no plugin changed it)")
	}
	for _, f := range rec.Fields {
		plugin := f.Plugin
		if f.Removed {
			plugin += " (removed it)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Field, orDash(f.Key), plugin)
	}
	fmt.Fprintln(tw)
	approved := "approved by: " + strings.Join(rec.Validation.Validators, ", ")
	if len(rec.Validation.Validators) == 0 {
		approved = "approved by no validator plugin"
	}
	if rec.Validation.DefaultValidator {
		approved += "; and the default validator"
	}
	fmt.Fprintf(tw, "VALIDATION\n%s\n\n", approved)
	fmt.Fprintln(tw, "UPDATES SINCE (oldest first)")
	if len(rec.Updates) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	for _, u := range rec.Updates {
		fields := make([]string, len(u.Fields))
		for i, f := range u.Fields {
			fields[i] = f.Field
			if f.Key != "" {
				fields[i] += " " + f.Key
			}
		}
		failed := ""
		if u.Failed {
			failed = "\t(the runtime reported it failed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", u.Time.Format(sinceLayout), u.Source, u.Plugin, strings.Join(fields, ", "), failed)
	}
}

// writeStatusText writes a runtime's status as the report would: a header,
// the plugins, their calls and last errors, the handshakes in progress and
// the recent plugin changes.
func writeStatusText(w io.Writer, st *adaptation.Status) error {
	return writeTable(w, func(tw io.Writer) { statusText(tw, st) })
}

func statusText(tw io.Writer, st *adaptation.Status) {
	s := st.Settings
	fmt.Fprintf(tw, "nritest: status of %s %s (NRI %s) at %s, started: %t\n", st.Runtime, st.RuntimeVersion, st.NRIVersion,
		st.Time.Format(sinceLayout), st.Started)
	fmt.Fprintf(tw, "  timeouts:  request %v, registration %v, sync %v; container records: %d kept (cap %d)\n\n",
		time.Duration(s.RequestTimeout), time.Duration(s.RegistrationTimeout), time.Duration(s.SyncTimeout), st.ContainerRecords, s.ContainerRecords)
	infos := make([]adaptation.PluginInfo, len(st.Plugins))
	for i, p := range st.Plugins {
		infos[i] = p.PluginInfo
	}
	r := &Report{Active: pluginReports(infos, nil), Status: st, Readiness: readinessReport(st.Readiness, st.Settings.PluginReadiness)}
	r.textReadiness(tw)
	r.textPlugins(tw)
	r.textStatus(tw)
	fmt.Fprintln(tw, "JOINING (plugins in their handshake)")
	if len(st.Joining) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	for _, j := range st.Joining {
		fmt.Fprintf(tw, "%s\tpid %d\t%s since %s\n", j.Plugin, j.PID, j.Phase, j.Since.Format(sinceLayout))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "RECENT CHANGES (oldest first)")
	if len(st.RecentChanges) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	for _, c := range st.RecentChanges {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Time.Format(sinceLayout), c.Plugin, c.Change, orDash(c.Phase), orDash(c.Reason))
	}
}
