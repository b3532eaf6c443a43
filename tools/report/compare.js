/* heaptap compare --html: a plot per growing function. SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
"use strict";
(function () {
	var H = heaptap, rows = H.data("heaptap-compare") || [];
	var plots = document.querySelectorAll("div.plot[data-row]");
	Array.prototype.forEach.call(plots, function (node) {
		H.guard("plot", function () {
			var r = rows[Number(node.getAttribute("data-row"))];
			var ps = r.points, xs = ps.map(function (p) { return p.world_size; });
			var col = function (k) { return ps.map(function (p) { return p[k]; }); };
			var fit = xs.map(function (p) { return r.intercept + r.bytes_per_process * p; });
			var plot = new uPlot({
				width: 480, height: 240,
				scales: { x: { time: false } },
				axes: [{ label: "processes" },
				       { size: 80, incrs: H.BYTE_INCRS,
					 values: function (u, v) { return v.map(H.bytes); } }],
				series: [
					{ label: "processes" },
					{ label: "ranks' min", stroke: "rgba(0,0,0,0.3)", points: { show: false } },
					{ label: "ranks' max", stroke: "rgba(0,0,0,0.3)", points: { show: false } },
					{ label: "median", stroke: H.OUTLIER, width: 0,
					  points: { show: true, size: 8, fill: H.OUTLIER } },
					{ label: "fit", stroke: "#1565c0", dash: [6, 3], points: { show: false } },
				],
				bands: [{ series: [2, 1], fill: "rgba(0,0,0,0.08)" }],
			}, [xs, col("max_min"), col("max_max"), col("max"), fit], node);
			node.setAttribute("data-series", plot.series.length - 1);
		});
	});
	document.body.setAttribute("data-render-ms", Math.round(performance.now()));
})();
