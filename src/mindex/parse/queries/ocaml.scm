; References in OCaml. A function applied (`f x`, `Uri.to_string u`), piped into (`x |> f`),
; applied with `@@` or passed qualified (`List.map String.trim xs`) is a call; a plain argument
; is a value. `open Foo` and `include Foo` bring every name of `foo.ml`; `module U = Uri`
; names a module `U`. A module of the index is seen without any of them (`Uri.f x`: mindex.graph).
(application_expression function: (value_path . (value_name) @call.name .))
(application_expression function: (value_path (module_path) @call.receiver . (value_name) @call.name .))
(application_expression argument: (value_path (module_path) @call.receiver . (value_name) @call.name .))
(infix_expression operator: (rel_operator) @_op right: (value_path . (value_name) @call.name .) (#eq? @_op "|>"))
(infix_expression operator: (rel_operator) @_op
  right: (value_path (module_path) @call.receiver . (value_name) @call.name .) (#eq? @_op "|>"))
(infix_expression left: (value_path . (value_name) @call.name .) operator: (concat_operator) @_op (#eq? @_op "@@"))
(infix_expression left: (value_path (module_path) @call.receiver . (value_name) @call.name .)
  operator: (concat_operator) @_op (#eq? @_op "@@"))
(open_module module: (module_path) @import.module)
(include_module module: (module_path) @import.module)
(module_definition (module_binding (module_name) @import.alias body: (module_path) @import.module))
