package boot

// TiersID is the id of the script element (type application/json) in which
// the server hands the chart page the tier path's answer it holds for the
// page's contract (named by the element's data-contract), so that the risk
// panel adopts it instead of fetching it.
const TiersID = "tiers-first"
