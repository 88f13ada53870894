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
		if f.Name != "status-of" && f.Name != "json" && f.Name != "v" && err == nil {
			err = fmt.Errorf("--%s does not apply to --status-of", f.Name)
		}
	})
	return err
}

// printStatusOf gets GET /v1/status from the status socket at path and
// prints it, as served with asJSON, else as the report's STATUS section
// with the plugins; it returns exitFailed when the runtime cannot be
// reached or does not answer with a status.
func printStatusOf(ctx context.Context, path string, asJSON bool, stdout, stderr io.Writer) int {
	body, err := fetchStatus(ctx, path)
	if err != nil {
		fmt.Fprintf(stderr, "nritest: --status-of %s: %v\n", path, err)
		return exitFailed
	}
	var st adaptation.Status
	if err := json.Unmarshal(body, &st); err != nil {
		fmt.Fprintf(stderr, "nritest: --status-of %s: not a status: %v\n", path, err)
		return exitFailed
	}
	if asJSON {
		_, err = stdout.Write(body)
	} else {
		err = writeStatusText(stdout, &st)
	}
	if err != nil {
		fmt.Fprintf(stderr, "nritest: writing the status: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func fetchStatus(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, statusOfTimeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://nri/v1/status", nil)
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
	if rsp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /v1/status answered %s", rsp.Status)
	}
	return body, nil
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
	r := &Report{Active: pluginReports(infos, nil), Status: st}
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
