; References in Solidity. A call: `f(x)`, `c.f(x)`, `IERC20(token).f(x)` (a cast: a call on
; the type), a modifier (`onlyOwner`) and a base constructor (`Ownable(owner)`), and `emit
; Transfer(...)` (a call of the event). An import is the whole directive (`import {A, B as C}
; from "./x.sol"`, `import "./x.sol"`, `import * as M from`: refs.py splits it); `contract T
; is A, B` extends each.
(call_expression function: (expression (identifier) @call.name))
(call_expression function: (expression (member_expression object: (_) @call.receiver property: (identifier) @call.name))
  (#not-match? @call.receiver "^[A-Z]\\w*\\("))
(call_expression function: (expression (member_expression
  object: (expression (call_expression function: (expression (identifier) @call.receiver)))
  property: (identifier) @call.name))
  (#match? @call.receiver "^[A-Z]"))
(modifier_invocation . (identifier) @call.name)
(emit_statement name: (expression (identifier) @call.name))
(import_directive) @import.tree
(inheritance_specifier ancestor: (user_defined_type (identifier) @extends.name .))
; What a name holds: a state variable, parameter or local of a contract's type (`IERC20 token`).
(state_variable_declaration type: (type_name (user_defined_type (identifier) @type.name .)) name: (identifier) @type.var)
(parameter type: (type_name (user_defined_type (identifier) @type.name .)) name: (identifier) @type.var)
(variable_declaration type: (type_name (user_defined_type (identifier) @type.name .)) name: (identifier) @type.var)
