// The ledger panel's browser code arrives with the webview issue; it may import only src/protocol.
export {};
