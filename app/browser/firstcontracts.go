package browser

import "github.com/riskchart/riskchart/app/boot"

// TakeFirstContracts returns, once, the contract path's answer the server
// put in the page (boot.ContractsID). Like the tiers' (TakeFirstTiers), the
// element is outside the app's root and is removed once read.
func TakeFirstContracts() (body string, ok bool) {
	el := ElementByID(boot.ContractsID)
	if !el.Truthy() {
		return "", false
	}
	el.Call("remove")
	return el.Get("textContent").String(), true
}
