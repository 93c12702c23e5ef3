package settings

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/spf13/viper"
)

// Load merges defaults, the settings file, the environment and the flags
// that were set on fs (flags bound by name: runs-dir -> runs_dir) into
// into, a pointer to a struct that is base or holds it squashed
// (`mapstructure:",squash"`), so that cmd can add its own blocks. file is
// --config; "" reads ./tune.yaml when it exists. The file is first decoded
// with positions, so that every problem names its file:line:col (or the
// environment variable or flag that set the value); relative paths resolve
// against the settings file's directory (see ResolvePaths); then base is
// validated. Every error is the user's (a bad file or value).
func Load(into any, base *Settings, file string, fs *flag.FlagSet, flagKeys map[string]string) error {
	t := reflect.TypeOf(into).Elem()
	v := viper.New()
	for k, d := range Defaults() {
		v.SetDefault(k, d)
	}
	if file == "" {
		if _, err := os.Stat(DefaultSettingsFile); err == nil {
			file = DefaultSettingsFile
		}
	}
	src, problems := readFile(file, t)
	problems = append(problems, checkEnv(src, EnvKeys, t)...)
	if len(problems) > 0 {
		return problems
	}
	if file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return fmt.Errorf("settings %s: %w", file, err)
		}
	}
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	// AutomaticEnv only answers for keys viper knows; bind the nested ones.
	for _, k := range EnvKeys {
		_ = v.BindEnv(k)
	}
	if fs != nil {
		fs.Visit(func(f *flag.Flag) {
			if key, ok := flagKeys[f.Name]; ok {
				v.Set(key, f.Value.String())
				src.flags[key] = f.Name
			}
		})
	}
	if err := v.UnmarshalExact(into); err != nil {
		where := "settings"
		if file != "" {
			where = "settings " + file
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	base.File, base.Src = file, src
	if err := base.ResolvePaths(); err != nil {
		return err
	}
	return base.Validate()
}
