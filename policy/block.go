package policy

import "strings"

// GitignoreBlock is the bounded .gitignore that `create-vivary init` writes
// and that, before `git init`, is the only ignore policy the producers accept
// byte for byte. It is defined here once; init writes this constant.
const GitignoreBlock = "# >>> vivary private/runtime >>>\n" +
	".vivary/private/\n" +
	".vivary/runtime/\n" +
	"*.vivary-tmp\n" +
	"# <<< vivary private/runtime <<<\n"

// GitignoreBlockCocoindex is the variant for the cocoindex-code capability.
const GitignoreBlockCocoindex = "# >>> vivary private/runtime >>>\n" +
	".vivary/private/\n" +
	".vivary/runtime/\n" +
	"*.vivary-tmp\n" +
	".cocoindex_code/\n" +
	"# <<< vivary private/runtime <<<\n"

// thinIgnored applies the exact block's rules to a candidate file path the
// way Git reads them: the two anchored directories, any component ending in
// .vivary-tmp, and (cocoindex only) any .cocoindex_code component.
func thinIgnored(rel string, cocoindex bool) bool {
	if hasPrefixDir(rel, ".vivary/private") || hasPrefixDir(rel, ".vivary/runtime") {
		return true
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasSuffix(seg, ".vivary-tmp") || (cocoindex && seg == ".cocoindex_code") {
			return true
		}
	}
	return false
}

func hasPrefixDir(rel, dir string) bool {
	return len(rel) > len(dir) && rel[:len(dir)] == dir && rel[len(dir)] == '/'
}
