; References in Go.
(call_expression function: (identifier) @call.name)
(call_expression function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name))
(import_spec !name path: (interpreted_string_literal) @import.module)
(import_spec name: (package_identifier) @import.alias path: (interpreted_string_literal) @import.module)
; What a name holds, for calls on it (see python.scm): a parameter or receiver, a `var` with a
; type, a composite literal (`v := &Thing{}`), a function's result (`s := c.Parent()`), and
; what a function says it returns.
(parameter_declaration name: (identifier) @type.var type: (_) @type.name)
(var_spec name: (identifier) @type.var type: (_) @type.name)
(short_var_declaration left: (expression_list . (identifier) @type.var)
  right: (expression_list . [(composite_literal type: (_) @type.name)
                             (unary_expression operand: (composite_literal type: (_) @type.name))]))
(short_var_declaration left: (expression_list . (identifier) @type.var)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @type.new)))
(function_declaration result: (_) @returns.name)
(method_declaration result: (_) @returns.name)
; A struct's field (@type.attr: `v.logger` where v is the struct) and its type.
(field_declaration name: (field_identifier) @type.attr type: (_) @type.name)
