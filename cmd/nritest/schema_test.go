// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile documents the JSON report; every JSON report a test reads is
// checked against it (parseJSON), so that the two cannot drift apart.
const schemaFile = "report.schema.json"

var (
	reportSchema      = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(schemaFile) })
	conformanceSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(conformanceSchemaFile) })
)

// conformanceSchemaFile documents the JSON report of --conformance.
const conformanceSchemaFile = "conformance.schema.json"

func compileSchema(file string) (*jsonschema.Schema, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // "since" must be a real date-time
	if err := c.AddResource(file, doc); err != nil {
		return nil, err
	}
	return c.Compile(file)
}

// checkSchema fails the test unless out is a report the schema allows.
func checkSchema(t *testing.T, out string) {
	t.Helper()
	checkAgainst(t, out, schemaFile, reportSchema)
}

func checkAgainst(t *testing.T, out, file string, schema func() (*jsonschema.Schema, error)) {
	t.Helper()
	sch, err := schema()
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("JSON report: %v\n%s", err, out)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the JSON report does not follow %s: %v\n%s", file, err, out)
	}
}

// TestSchemaVersion: the report says which schema it follows, and the
// schema pins that version.
func TestSchemaVersion(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "--json", "--plugin-path", "")
	if rep := parseJSON(t, r.stdout); rep.SchemaVersion != schemaVersion {
		t.Errorf("schema_version %d, want %d", rep.SchemaVersion, schemaVersion)
	}
	// A report of another version is refused.
	bad := strings.Replace(r.stdout, `"schema_version": 2`, `"schema_version": 1`, 1)
	sch, err := reportSchema()
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if bad == r.stdout || sch.Validate(inst) == nil {
		t.Error("the schema accepts a report of schema_version 1")
	}
}
