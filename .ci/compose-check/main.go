// compose-check loads docker-compose.yml with compose-go v2, the loader Docker Compose itself uses,
// once per variant (profiles + environment), and prints the normalised projects as JSON so that
// test/compose.test.ts can check them without a Docker engine.
//
//	compose-check [-f docker-compose.yml] [VARIANT...]
//
// A VARIANT is NAME[:PROFILE,PROFILE...[:KEY=VALUE,KEY=VALUE...]], e.g. `default` or
// `postgres:postgres:EVENT_STORE=postgres` (values cannot hold a comma). Without one: `default` and
// `postgres` as above.
// Each variant sees only the environment it names (not this process's), so the result does not
// depend on the shell that runs the check. A variant that fails to load is reported with its error
// and makes the exit status 1; the JSON is printed either way.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

type variant struct {
	Name     string            `json:"name"`
	Profiles []string          `json:"profiles"`
	Env      map[string]string `json:"env"`
}

type result struct {
	Variant  variant        `json:"variant"`
	Error    string         `json:"error,omitempty"`
	Project  *types.Project `json:"project,omitempty"`
	Disabled []string       `json:"disabled_services,omitempty"`
}

func parseVariant(spec string) (variant, error) {
	parts := strings.SplitN(spec, ":", 3)
	v := variant{Name: parts[0], Profiles: []string{}, Env: map[string]string{}}
	if v.Name == "" {
		return v, fmt.Errorf("variant %q has no name", spec)
	}
	if len(parts) > 1 && parts[1] != "" {
		v.Profiles = strings.Split(parts[1], ",")
	}
	if len(parts) > 2 && parts[2] != "" {
		for _, pair := range strings.Split(parts[2], ",") {
			key, value, ok := strings.Cut(pair, "=")
			if !ok || key == "" {
				return v, fmt.Errorf("variant %q: %q is not KEY=VALUE", spec, pair)
			}
			v.Env[key] = value
		}
	}
	return v, nil
}

func load(ctx context.Context, file string, v variant) (*types.Project, error) {
	env := make([]string, 0, len(v.Env))
	for key, value := range v.Env {
		env = append(env, key+"="+value)
	}
	dir := filepath.Dir(file)
	// The options Docker Compose's own `toProjectOptions` passes, less the host environment and the
	// .env file: the variant's environment stands for them.
	options, err := cli.NewProjectOptions([]string{file},
		cli.WithWorkingDirectory(dir),
		cli.WithEnv(env),
		cli.WithDefaultProfiles(v.Profiles...),
		cli.WithName("archivist"),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		return nil, err
	}
	return options.LoadProject(ctx)
}

func main() {
	file := flag.String("f", "docker-compose.yml", "the compose file")
	flag.Parse()
	specs := flag.Args()
	if len(specs) == 0 {
		specs = []string{"default", "postgres:postgres:EVENT_STORE=postgres"}
	}
	absolute, err := filepath.Abs(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	status := 0
	results := []result{}
	for _, spec := range specs {
		v, err := parseVariant(spec)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		r := result{Variant: v}
		project, err := load(context.Background(), absolute, v)
		if err != nil {
			r.Error = err.Error()
			status = 1
		} else {
			r.Project = project
			for name := range project.DisabledServices {
				r.Disabled = append(r.Disabled, name)
			}
			sort.Strings(r.Disabled)
		}
		results = append(results, r)
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(status)
}
