/* heaptap report --html: draws the job's page from its data blocks. SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
"use strict";
(function () {
	var H = heaptap, el = H.el, bytes = H.bytes;
	/* Beyond this many ranks the plot over time shows bands, not a line per rank. */
	var BAND_ABOVE = 50;
	var TOP_BARS = 25;
	var job = H.data("heaptap-job");
	var S = job.summary || {};
	var outliers = {};
	(S.outliers || []).forEach(function (o) {
		outliers[typeof o === "object" ? o.rank : o] = true;
	});
	function section(id) {
		return document.getElementById(id);
	}
	function how(id, text) {
		section(id).querySelector(".how").textContent = text;
	}

	function drawSummary() {
		var body = section("summary").querySelector(".body");
		var facts = [];
		function fact(name, v) {
			if (v != null && v !== "")
				facts.push([name, v]);
		}
		fact("ranks", S.ranks);
		fact("world size", S.world_size);
		fact("job", S.job);
		fact("hosts", S.hosts && S.hosts.length ?
		     S.hosts.length + ": " + S.hosts.slice(0, 12).join(", ") +
		     (S.hosts.length > 12 ? ", \u2026" : "") : null);
		fact("duration", S.duration != null ? S.duration.toFixed(1) + " s" : null);
		fact("attribution", S.attribution);
		fact("lost events", S.lost_events);
		fact("incomplete stacks", S.incomplete_stacks);
		fact("other processes", S.other_processes);
		fact("files", S.files && S.files.length);
		var t = el("table");
		facts.forEach(function (f) {
			t.appendChild(el("tr", {}, el("th", { class: "t" }, f[0]),
					 el("td", { class: "t" }, f[1])));
		});
		body.appendChild(t);
		if (S.total) {
			body.appendChild(el("h3", {}, "Each rank's total (min / median / max over ranks)"));
			body.appendChild(H.table(["current", "max", "calls"].map(function (k) {
				var s = S.total[k] || {};
				var f = k === "calls" ? String : bytes;
				return { figure: k, min: f(s.min), median: f(s.median), max: f(s.max),
					 "rank of max": s.rank_of_max };
			})));
		}
		body.appendChild(el("h3", {}, "Outliers"));
		var rule = S.outlier_rule;
		if (rule)
			body.appendChild(el("p", { class: "how" }, "Ranks whose " + rule.figure +
				" is far above the median rank's (" + bytes(rule.median) +
				"): modified z-score above " + rule.z + " and more than " +
				Math.round(rule.min_ratio * 100) + "% above the median."));
		body.appendChild((S.outliers || []).length ? H.table(S.outliers) :
				 el("p", {}, "None."));
		if (S.peaks && S.peaks.length) {
			body.appendChild(el("h3", {}, "What held each rank's peak"));
			body.appendChild(el("p", { class: "how" }, "Ranks with the owner view: the " +
				"allocation sites that held most when the rank's heap peaked, " +
				"innermost frame first."));
			var rows = [];
			S.peaks.forEach(function (pk) {
				(pk.sites || []).slice(0, 3).forEach(function (site, k) {
					rows.push({ rank: k ? "" : pk.rank,
						    "peak": k ? "" : bytes(pk.bytes),
						    "site's bytes": bytes(site.bytes),
						    blocks: site.blocks,
						    site: (site.frames || []).slice(0, 6).map(function (f) {
							return f.function;
						    }).join(" \u2190 ") });
				});
			});
			body.appendChild(H.table(rows.slice(0, 60)));
		}
		if (S.nodes && S.nodes.length) {
			body.appendChild(el("h3", {}, "Each node's peak"));
			body.appendChild(el("p", { class: "how" }, "What a host's traced processes " +
				"held at once, added up as their calls were read (not the sum of " +
				"their own peaks, which came at different moments); when, to the " +
				"reading loop's clock; and the sites across its ranks that held it."));
			var nrows = [];
			S.nodes.forEach(function (n) {
				var pk = n.peak;
				if (!pk) {
					nrows.push({ host: n.host, peak: "unknown: one report per rank",
						     "ranks' peaks added": bytes(n.sum_of_rank_peaks) });
					return;
				}
				(pk.sites && pk.sites.length ? pk.sites.slice(0, 3) : [null])
					.forEach(function (site, k) {
					nrows.push({ host: k ? "" : n.host,
						     peak: k ? "" : bytes(pk.bytes),
						     "at (s)": k ? "" : pk.seconds.toFixed(2),
						     "ranks' peaks added": k ? "" :
							bytes(n.sum_of_rank_peaks),
						     rank: site ? site.rank : "",
						     "site's bytes": site ? bytes(site.bytes) : "",
						     site: site ? (site.frames || []).slice(0, 6)
							.map(function (f) { return f.function; })
							.join(" \u2190 ") : "" });
				});
			});
			body.appendChild(H.table(nrows.slice(0, 60)));
		}
		if (S.oom_kills && S.oom_kills.length) {
			body.appendChild(el("h3", {}, "Killed by the OOM killer"));
			var orows = [];
			S.oom_kills.forEach(function (o) {
				(o.sites && o.sites.length ? o.sites.slice(0, 3) : [null])
					.forEach(function (site, k) {
					orows.push({ rank: k ? "" : o.rank, host: k ? "" : o.host,
						     "at (s)": k ? "" : o.time.toFixed(2),
						     held: k ? "" : bytes(o.bytes),
						     "site's bytes": site ? bytes(site.bytes) : "",
						     site: site ? (site.frames || []).slice(0, 6)
							.map(function (f) { return f.function; })
							.join(" \u2190 ") : "" });
				});
			});
			body.appendChild(H.table(orows));
		}
		if (S.untraced && S.untraced.length) {
			body.appendChild(el("h3", {}, "Not traced"));
			body.appendChild(H.table(S.untraced));
		}
	}

	/* The ranks' values at each time: min, percentiles, median, max (null: no rank). */
	function bands(series, n) {
		var qs = [0, 0.1, 0.5, 0.9, 1], out = qs.map(function () { return new Array(n); });
		for (var i = 0; i < n; i++) {
			var col = [];
			for (var r = 0; r < series.length; r++)
				if (series[r][i] != null)
					col.push(series[r][i]);
			col.sort(function (a, b) { return a - b; });
			qs.forEach(function (q, k) {
				out[k][i] = col.length ? col[Math.round(q * (col.length - 1))] : null;
			});
		}
		return out;
	}

	function drawTime() {
		var node = section("time").querySelector(".plot");
		var ranks = job.ranks, series = job.series, time = job.time;
		if (!time.length) {
			how("time", "The reports hold no samples over time: run and attach take one " +
			    "every -i seconds (and one at each process's end); older reports have " +
			    "none.");
			return;
		}
		var data = [time], sers = [{ label: "seconds" }], bandList = [], focused = null;
		var lineOf = function (i) {
			var r = ranks[i].rank, out = outliers[r];
			return { label: "rank " + r, rank: r,
				 stroke: out ? H.OUTLIER : "hsla(210,60%,40%,0.6)",
				 width: out ? 2.5 : 1, points: { show: false }, spanGaps: false,
				 paths: step };
		};
		/* Memory holds its value from one sample to the next. */
		var step = uPlot.paths.stepped({ align: 1 });
		var mode = ranks.length > BAND_ABOVE ? "bands" : "lines";
		if (mode === "lines") {
			how("time", "Each rank's heap (usable bytes held) over time, one line per rank; " +
			    "outliers in red. Hover to read the ranks' values; click near a line " +
			    "to open its rank's report.");
			series.forEach(function (s, i) {
				data.push(s);
				sers.push(lineOf(i));
			});
		} else {
			how("time", "The ranks' heap (usable bytes held) over time: " + ranks.length +
			    " ranks are too many for a line each, so the light band spans min to " +
			    "max, the darker one the 10th to 90th percentile, the line is the median; " +
			    "outliers are drawn in red, each as its own line (click near one to " +
			    "open its rank's report).");
			var b = bands(series, time.length);
			var names = ["min", "p10", "median", "p90", "max"];
			b.forEach(function (col, k) {
				data.push(col);
				sers.push({ label: names[k], points: { show: false }, paths: step,
					    stroke: k === 2 ? "#1565c0" : "rgba(21,101,192,0.35)",
					    width: k === 2 ? 2 : 1 });
			});
			bandList = [{ series: [5, 1], fill: "rgba(21,101,192,0.12)" },
				    { series: [4, 2], fill: "rgba(21,101,192,0.25)" }];
			ranks.forEach(function (r, i) {
				if (outliers[r.rank]) {
					data.push(series[i]);
					sers.push(lineOf(i));
				}
			});
		}
		/*
		 * Each node's sum at once, where a report carries it, on the same grid: its
		 * latest sample at each time (the samples share the ranks' clock).
		 */
		var rankLines = sers.length - 1, nodeLines = 0;
		(S.nodes || []).forEach(function (n) {
			var samples = n.samples || [], col = new Array(time.length), k = -1;
			if (!samples.length || n.resolution !== "events")
				return;
			time.forEach(function (t, i) {
				while (k + 1 < samples.length && samples[k + 1][0] <= t)
					k++;
				col[i] = k >= 0 ? samples[k][1] : null;
			});
			data.push(col);
			sers.push({ label: (n.host || "node") + " (sum)", points: { show: false },
				    paths: step, stroke: "#2e7d32", width: 2, dash: [6, 4] });
			nodeLines++;
		});
		var plot = new uPlot({
			width: H.width(node), height: 360,
			legend: { show: sers.length <= 17, live: true },
			scales: { x: { time: false, range: function (u, lo, hi) {
				return [Math.min(0, lo), hi > 0 ? hi : 1];
			} } },
			axes: [{ label: "seconds since tracing began" },
			       { size: 80, incrs: H.BYTE_INCRS,
				 values: function (u, v) { return v.map(bytes); } }],
			series: sers, bands: bandList,
			/* The line nearest the pointer stands out; a click opens its rank's report. */
			cursor: { focus: { prox: 12 } },
			focus: { alpha: 0.4 },
			hooks: { setSeries: [function (u, i, o) {
				if (o && "focus" in o)
					focused = o.focus ? i : null;
			}] },
		}, data, node);
		plot.over.addEventListener("click", function () {
			var rank = focused != null ? sers[focused].rank : null;
			var b = rank != null &&
				document.querySelector("#ranks button[data-rank=\"" + rank + "\"]");
			if (b) {
				if (!b.classList.contains("shown"))
					b.click();
				section("ranks").scrollIntoView();
			}
		});
		node.setAttribute("data-mode", mode);
		node.setAttribute("data-series", rankLines);
		node.setAttribute("data-nodes", nodeLines);
	}

	function barItems(rows, name) {
		return rows.filter(function (f) { return f.max; }).slice(0, TOP_BARS).map(function (f) {
			return { name: name(f), median: f.max.median, min: f.max.min, max: f.max.max };
		});
	}

	function groupTable(rows, withShare) {
		var total = 0;
		rows.forEach(function (r) { total += r.max ? r.max.median : 0; });
		return H.table(rows.map(function (r) {
			var row = {};
			if (r.function != null)
				row["function"] = r.function;
			row.library = H.baseName(r.library);
			if (withShare)
				row["share"] = total > 0 ? (100 * r.max.median / total).toFixed(1) + "%" : "";
			row.ranks = r.ranks;
			row["max: min / median / max (rank)"] = H.cell("max", r.max);
			row["current: min / median / max (rank)"] = H.cell("current", r.current);
			row["calls: min / median / max"] = H.cell("calls", r.calls);
			return row;
		}));
	}

	function drawFunctions() {
		var s = section("functions"), fs = S.functions || [];
		how("functions", "Each function's max (the most its calls held at once, DMATP's " +
		    "mem_max) across ranks: the bar is the median rank's, the whisker spans the " +
		    "smallest to the largest rank's. The " + Math.min(TOP_BARS, fs.length) +
		    " largest by max are drawn; the table lists them all.");
		var items = barItems(fs, function (f) {
			return f.function + " (" + H.baseName(f.library) + ")";
		});
		if (items.length)
			H.whiskerBars(s.querySelector(".plot"), items, { label: "median of max" });
		s.querySelector(".body").appendChild(groupTable(fs, false));
	}

	function drawLibraries() {
		var s = section("libraries"), ls = S.libraries || [];
		how("libraries", "Each library's max across ranks (bar: the median rank's, whisker: " +
		    "min to max), and its share of the libraries' median maxes added up.");
		var plot = el("div", { class: "plot" });
		s.querySelector(".body").appendChild(plot);
		var items = barItems(ls, function (l) { return H.baseName(l.library); });
		if (items.length)
			H.whiskerBars(plot, items, { label: "median of max", labelWidth: 200 });
		s.querySelector(".body").appendChild(groupTable(ls, true));
	}

	function drawTree() {
		var s = section("tree"), tree = job.tree || { nodes: [], libraries: [] };
		var nodes = tree.nodes, kids = nodes.map(function () { return []; });
		var best = {};
		nodes.forEach(function (n, i) {
			if (n[0] >= 0)
				kids[n[0]].push(i);
			if (!(n[1] in best) || n[5] > best[n[1]])
				best[n[1]] = n[5];
		});
		kids.forEach(function (k) { k.sort(function (a, b) { return nodes[b][5] - nodes[a][5]; }); });
		how("tree", "The calls below a function, merged over the ranks: each line is a path " +
		    "some rank took, with its max (inclusive) over the ranks that took it: min / " +
		    "median / max, the rank of the max, and how many ranks. Click a line to open " +
		    "it.");
		if (!nodes.length) {
			s.querySelector(".body").appendChild(el("p", {}, "The reports hold no call tree " +
				"(heaptap writes one with --tree)."));
			return;
		}
		/* Functions that call others first, largest max first: the default shows a tree. */
		var calls = {};
		nodes.forEach(function (n, i) {
			if (kids[i].length)
				calls[n[1]] = true;
		});
		var names = Object.keys(best).sort(function (a, b) {
			return (calls[b] ? 1 : 0) - (calls[a] ? 1 : 0) || best[b] - best[a];
		});
		var select = el("select", { id: "tree-function" });
		names.forEach(function (n) {
			select.appendChild(el("option", { value: n }, n + " (" + bytes(best[n]) + ")"));
		});
		var holder = el("div", { class: "tree" });
		function line(i) {
			var n = nodes[i];
			return [el("b", {}, n[1]), " ", el("span", { class: "lib" },
				H.baseName(tree.libraries[n[2]])), " \u2014 max ",
				el("span", { class: "bytes" }, bytes(n[3]) + " / " + bytes(n[4]) + " / " +
				   bytes(n[5])), " (rank " + n[6] + "), " + n[7] + " rank" +
				(n[7] === 1 ? "" : "s")];
		}
		/* A node's children are made when it is first opened: trees can be large. */
		function detail(i, open) {
			var d = el("details", { class: kids[i].length ? "" : "leaf" });
			var sum = el("summary");
			line(i).forEach(function (c) { sum.appendChild(typeof c === "object" ? c : document.createTextNode(c)); });
			d.appendChild(sum);
			var filled = false;
			function fill() {
				if (filled || !d.open)
					return;
				filled = true;
				kids[i].forEach(function (k) { d.appendChild(detail(k, false)); });
			}
			d.addEventListener("toggle", fill);
			if (open && kids[i].length) {
				d.open = true;
				fill();
			}
			return d;
		}
		function show() {
			holder.textContent = "";
			var f = select.value;
			nodes.forEach(function (n, i) {
				/* Where f calls itself, its outermost occurrence holds the inner ones. */
				for (var p = n[0]; p >= 0; p = nodes[p][0])
					if (nodes[p][1] === f)
						return;
				if (n[1] === f)
					holder.appendChild(detail(i, true));
			});
		}
		select.addEventListener("change", show);
		var body = s.querySelector(".body");
		body.appendChild(el("label", {}, "Below ", select));
		body.appendChild(holder);
		show();
	}

	function drawRanks() {
		var s = section("ranks"), pre = s.querySelector("pre.text"), texts = null;
		var shown = null;
		how("ranks", "Each rank's own report, as heaptap prints it (DMATP's sections: " +
		    "overall, threads, libraries, functions): click a rank. Outliers are in red. " +
		    "A link to this page ending in #rank-N opens rank N's.");
		var box = el("div", { class: "ranks" });
		job.ranks.forEach(function (r, i) {
			var b = el("button", { class: outliers[r.rank] ? "outlier" : "",
					       "data-rank": r.rank, title: "pid " + r.pid +
					       (r.host ? " on " + r.host : "") }, r.rank);
			b.addEventListener("click", function () {
				texts = texts || H.data("heaptap-texts");
				if (shown)
					shown.classList.remove("shown");
				if (shown === b) {
					pre.hidden = true;
					shown = null;
					return;
				}
				b.classList.add("shown");
				shown = b;
				pre.textContent = texts[i];
				pre.hidden = false;
			});
			box.appendChild(b);
		});
		s.querySelector(".body").appendChild(box);
		/* page.html#rank-N opens rank N's report: a link to one rank. */
		var want = /^#rank-(-?\d+)$/.exec(location.hash);
		var b = want && box.querySelector("button[data-rank=\"" + want[1] + "\"]");
		if (b) {
			b.click();
			s.scrollIntoView();
		}
	}

	H.guard("summary", drawSummary);
	H.guard("time", drawTime);
	H.guard("functions", drawFunctions);
	H.guard("libraries", drawLibraries);
	H.guard("tree", drawTree);
	H.guard("ranks", drawRanks);
	document.body.setAttribute("data-render-ms", Math.round(performance.now()));
})();
