; References in Perl. `f(...)`, `f $x` and `Pkg::f(...)` are calls (the package is the call's
; receiver); `$obj->m()` and `Class->new()` calls on a receiver. `use Pkg` (with or without
; an import list) brings what Pkg.pm exports, read as all its subs; pragmas are no imports.
(function_call_expression function: (function) @call.name)
(ambiguous_function_call_expression function: (function) @call.name)
(method_call_expression invocant: (_) @call.receiver method: (method) @call.name)
(use_statement module: (package) @import.module
  (#not-match? @import.module "^(strict|warnings|utf8|feature|constant|parent|base|lib|vars|overload|integer|bytes|open|experimental|if|version)$"))
