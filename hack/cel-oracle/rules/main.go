// oracle3: kube's CRD rule compilation (apiextensions cel.Compile with the stored
// expressions env) and validation. Input: JSON lines
// {"schema": <v1 JSONSchemaProps without x-kubernetes-validations>, "rule": "...", "obj": <json>|absent, "old": <json>|absent, "root": bool}
// Output: one JSON line per input: {"rule":..., "compile": "<error detail>"|"", "cost": N, "eval": [errors]}
package main

import (
	"bufio"
	"context"
	"encoding/json"
	kjson "k8s.io/apimachinery/pkg/util/json"
	"fmt"
	"os"
	"regexp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type input struct {
	Schema json.RawMessage `json:"schema"`
	Rule   string          `json:"rule"`
	Msg    string          `json:"msg"`
	Obj    json.RawMessage `json:"obj"`
	Old    json.RawMessage `json:"old"`
	Root   bool            `json:"root"`
}

type output struct {
	Rule    string   `json:"rule"`
	Compile string   `json:"compile"`
	MsgErr  string   `json:"msgErr,omitempty"`
	Cost    uint64   `json:"cost"`
	Eval    []string `json:"eval,omitempty"`
	Actual  int64    `json:"actual,omitempty"`
	Setup   string   `json:"setup,omitempty"`
}

var selfType = regexp.MustCompile(`selfType\d+`)

func main() {
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		var in input
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			enc.Encode(output{Setup: err.Error()})
			continue
		}
		out := run(envSet, in)
		out.Rule = in.Rule
		out.Compile = selfType.ReplaceAllString(out.Compile, "selfType")
		out.MsgErr = selfType.ReplaceAllString(out.MsgErr, "selfType")
		enc.Encode(out)
	}
}

func run(envSet *environment.EnvSet, in input) output {
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(in.Schema, &v1); err != nil {
		return output{Setup: err.Error()}
	}
	v1.XValidations = apiextensionsv1.ValidationRules{{Rule: in.Rule, MessageExpression: in.Msg}}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return output{Setup: err.Error()}
	}
	s, err := schema.NewStructural(&internal)
	if err != nil {
		return output{Setup: err.Error()}
	}
	results, err := cel.Compile(s, model.SchemaDeclType(s, in.Root), celconfig.PerCallLimit, envSet, cel.StoredExpressionsEnvLoader())
	if err != nil {
		return output{Setup: err.Error()}
	}
	var out output
	r := results[0]
	if r.Error != nil {
		out.Compile = r.Error.Detail
		return out
	}
	if r.MessageExpressionError != nil {
		out.MsgErr = r.MessageExpressionError.Detail
	}
	out.Cost = r.MaxCost
	if len(in.Obj) > 0 {
		var obj, old interface{}
		if err := kjson.Unmarshal(in.Obj, &obj); err != nil {
			return output{Setup: err.Error()}
		}
		if len(in.Old) > 0 {
			if err := kjson.Unmarshal(in.Old, &old); err != nil {
				return output{Setup: err.Error()}
			}
		}
		v := cel.NewValidator(s, in.Root, celconfig.PerCallLimit)
		errs, remaining := v.Validate(context.TODO(), field.NewPath("root"), s, obj, old, celconfig.RuntimeCELCostBudget)
		out.Actual = celconfig.RuntimeCELCostBudget - remaining
		out.Eval = []string{"<ok>"}[:0]
		for _, e := range errs {
			out.Eval = append(out.Eval, fmt.Sprintf("%s", e.Error()))
		}
		if len(out.Eval) == 0 {
			out.Eval = []string{"<ok>"}
		}
	}
	return out
}
