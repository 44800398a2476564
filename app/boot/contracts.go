package boot

// ContractsID is the id of the script element (type application/json) in
// which the server hands the chart page the contract path's answer, so that
// the page adopts the list instead of fetching it.
const ContractsID = "contracts-first"
