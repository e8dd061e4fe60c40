// The frame every area (the player's pages, the till, the console) is drawn in, written once:
// a bar saying who is logged in with the button that ends the session (the server's first, then
// this tab's), anything the area shows above its tabs, then its tabs and the chosen tab's panel.
import type { ComponentChildren, JSX } from "preact";
import { type Area, api, signOut } from "./session";
import { TabPanel, Tabs } from "./ui";

export function AreaShell<T extends string>(props: {
  area: Area;
  /** Who is logged in, in the bar. */
  who: ComponentChildren;
  /** Beside it in the bar (the player's clock). */
  beside?: ComponentChildren;
  /** The words of the button that ends the session. */
  leave: string;
  /** Shown between the bar and the tabs (notices, dialogs). */
  above?: ComponentChildren;
  label: string;
  tabs: readonly { id: T; title: string }[];
  current: T;
  onSelect: (tab: T) => void;
  children: ComponentChildren;
}): JSX.Element {
  const { area } = props;
  return (
    <div>
      <div class="bar">
        {props.who}
        {props.beside}
        <button
          type="button"
          onClick={() => {
            void api[area].DELETE("/v1/sessions/current").finally(() => signOut(area));
          }}
        >
          {props.leave}
        </button>
      </div>
      {props.above}
      <Tabs label={props.label} tabs={props.tabs} current={props.current} onSelect={props.onSelect} />
      <TabPanel id={props.current}>{props.children}</TabPanel>
    </div>
  );
}
