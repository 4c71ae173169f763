import { render } from "preact";
import { App } from "./App";
import { TokenGate } from "./served/TokenGate";
import { served } from "./transport";
import "./styles.css";

// Served (`alisio serve`, a browser): the app behind the token form and under the read-only badge.
const root = document.getElementById("app");
if (root) render(served ? <TokenGate><App /></TokenGate> : <App />, root);
