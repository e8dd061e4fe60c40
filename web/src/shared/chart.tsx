// A bar chart drawn by Chart.js (axes, values on hover, a legend when it compares series), with
// its figures in a table beside it: the table is what a screen reader, a regulator's copy and a
// test read; the picture is for the eye.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import type { JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { Scroll } from "./ui";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

/** The series' colours: the accent, then a contrasting second. */
const COLOURS = ["#0b5cad", "#c0621a"];

export interface Series {
  name: string;
  values: number[];
}

export function BarChart(props: {
  title: string;
  /** The axis the bars stand on, and its label. */
  labels: string[];
  axis: string;
  series: Series[];
  /** The value axis's label, and each value's words. */
  measure: string;
  format: (value: number) => string;
  max?: number;
}): JSX.Element {
  const canvas = useRef<HTMLCanvasElement>(null);
  const { title, labels, series, format, max, axis, measure } = props;
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: {
        labels,
        datasets: series.map((s, i) => ({ label: s.name, data: s.values, backgroundColor: COLOURS[i % COLOURS.length] })),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: series.length > 1 },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label ?? ""}: ${format(Number(item.raw))}` } },
        },
        scales: {
          x: { title: { display: true, text: axis } },
          y: {
            beginAtZero: true,
            max,
            title: { display: true, text: measure },
            ticks: { callback: (value) => format(Number(value)) },
          },
        },
      },
    });
    return () => chart.destroy();
  }, [JSON.stringify({ title, labels, series, max, axis, measure })]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div class="chart-canvas">
        <canvas
          ref={canvas}
          role="img"
          aria-label={`${title}: the figures are in the table beside it`}
          data-axis-max={max ?? ""}
        />
      </div>
      <Scroll label={`${title}: the figures`}>
        <table class="figures">
          <thead>
            <tr>
              <th scope="col">{axis}</th>
              {series.map((s) => (
                <th key={s.name} scope="col" class="num">
                  {series.length > 1 ? s.name : measure}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.name} class="num">
                    {s.values[i] === undefined ? "—" : format(s.values[i] ?? 0)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </figure>
  );
}
