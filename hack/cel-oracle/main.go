package main

// Conformance oracle: kube 1.36 StoredExpressions env, kube program options
// (OptOptimize, OptTrackCost, PresenceTestHasCost(false)) and library.CostEstimator.
// Input: one expression per line. Output: expr \t outcome \t actualCost \t estMin..estMax

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

func esc(s string) string {
	if !utf8.ValidString(s) {
		return fmt.Sprintf("<invalid-utf8 %x>", s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func dbl(f float64) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	if math.IsInf(f, -1) {
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'e', -1, 64)
}

func show(v ref.Val) string {
	switch x := v.(type) {
	case types.Null:
		return "null"
	case types.Bool:
		return strconv.FormatBool(bool(x))
	case types.Int:
		return strconv.FormatInt(int64(x), 10)
	case types.Uint:
		return strconv.FormatUint(uint64(x), 10) + "u"
	case types.Double:
		return "d:" + dbl(float64(x))
	case types.String:
		return esc(string(x))
	case types.Bytes:
		return fmt.Sprintf("b'%x'", []byte(x))
	case types.Duration:
		return fmt.Sprintf("duration(%dns)", int64(x.Duration))
	case types.Timestamp:
		return "timestamp(" + x.Time.UTC().Format(time.RFC3339Nano) + ")"
	case *types.Optional:
		if !x.HasValue() {
			return "optional.none()"
		}
		return "optional.of(" + show(x.GetValue()) + ")"
	case ref.Type:
		return "type(" + x.TypeName() + ")"
	case *types.Err:
		return "error-value: " + x.Error()
	case traits.Lister:
		n := int(x.Size().(types.Int))
		parts := make([]string, 0, n)
		for i := 0; i < n; i++ {
			parts = append(parts, show(x.Get(types.Int(i))))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case traits.Mapper:
		var parts []string
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			parts = append(parts, show(k)+": "+show(x.Get(k)))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "opaque(" + v.Type().TypeName() + ")"
}

func main() {
	envSet := environment.MustBaseEnvSet(version.MajorMinor(1, 36))
	env := envSet.StoredExpressionsEnv()
	est := &library.CostEstimator{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for sc.Scan() {
		expr := sc.Text()
		out, cost, estimate := run(env, est, expr)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", expr, out, cost, estimate)
	}
}

func run(env *cel.Env, est *library.CostEstimator, expr string) (out, cost, estimate string) {
	cost, estimate = "-", "-"
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		first := strings.SplitN(iss.Err().Error(), "\n", 2)[0]
		return "compile: " + first, cost, estimate
	}
	if ce, err := env.EstimateCost(ast, est); err == nil {
		estimate = fmt.Sprintf("%d..%d", ce.Min, ce.Max)
	} else {
		estimate = "err"
	}
	prg, err := env.Program(ast, cel.CostTracking(est))
	if err != nil {
		return "program: " + err.Error(), cost, estimate
	}
	val, det, err := prg.Eval(map[string]any{})
	if det != nil && det.ActualCost() != nil {
		cost = strconv.FormatUint(*det.ActualCost(), 10)
	}
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), "\n", "\\n"), cost, estimate
	}
	return show(val), cost, estimate
}
