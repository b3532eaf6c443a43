/* heaptap's web pages: what the job and compare pages share. SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
"use strict";
var heaptap = (function () {
	var OUTLIER = "#c62828";
	var UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

	function bytes(v) {
		if (v == null || isNaN(v))
			return "";
		var a = Math.abs(v), u = 0;
		while (a >= 1024 && u < UNITS.length - 1) {
			a /= 1024;
			u++;
		}
		return (v < 0 ? "-" : "") + (u ? a.toFixed(a < 10 ? 2 : 1) : a.toFixed(0)) + " " +
			UNITS[u];
	}

	function data(id) {
		var el = document.getElementById(id);
		return el ? JSON.parse(el.textContent) : null;
	}

	/* el(tag, {attr: value}, child...): children are nodes or text. */
	function el(tag, attrs) {
		var e = document.createElement(tag);
		for (var k in attrs || {}) {
			if (k === "text")
				e.textContent = attrs[k];
			else if (k === "class")
				e.className = attrs[k];
			else
				e.setAttribute(k, attrs[k]);
		}
		for (var i = 2; i < arguments.length; i++) {
			var c = arguments[i];
			if (c == null)
				continue;
			e.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
		}
		return e;
	}

	function baseName(path) {
		var s = String(path == null ? "" : path);
		return s.slice(s.lastIndexOf("/") + 1);
	}

	/* The summary's fields that are bytes (calls, ranks, z are counts). */
	var BYTE_KEYS = /^(bytes|current|max|min|median|held|size|peak|mad)$/;

	/* A cell of a generic table: {min, median, max, ...} objects as "min / median / max". */
	function cell(key, v) {
		if (v == null)
			return "";
		if (Array.isArray(v))
			return v.map(function (x) { return cell(key, x); }).join(", ");
		if (typeof v === "object") {
			var parts = [];
			["min", "median", "max"].forEach(function (k) {
				if (k in v)
					parts.push(key === "calls" ? String(v[k]) : cell(k, v[k]));
			});
			if ("rank_of_max" in v)
				parts.push("(rank " + v.rank_of_max + ")");
			if (parts.length)
				return parts.join(" / ");
			return Object.keys(v).map(function (k) {
				return k + ": " + cell(k, v[k]);
			}).join(", ");
		}
		if (typeof v === "number" && BYTE_KEYS.test(key) && Math.abs(v) >= 1024)
			return bytes(v);
		if (typeof v === "string" && v.charAt(0) === "/")
			return baseName(v);
		return String(v);
	}

	/* Rows of objects as a table, a column per key (first row's order, then others'). */
	function table(rows, limit) {
		var keys = [];
		rows.forEach(function (r) {
			if (r && typeof r === "object" && !Array.isArray(r))
				Object.keys(r).forEach(function (k) {
					if (keys.indexOf(k) < 0)
						keys.push(k);
				});
		});
		if (!keys.length)
			return el("p", {}, rows.map(function (r) { return cell("", r); }).join(", "));
		var t = el("table", {}, el("tr", {}, null));
		keys.forEach(function (k) { t.firstChild.appendChild(el("th", {}, k)); });
		rows.slice(0, limit || rows.length).forEach(function (r) {
			var tr = el("tr");
			keys.forEach(function (k) {
				var v = r[k];
				tr.appendChild(el("td", { class: typeof v === "string" ? "t" : "" },
						  cell(k, v)));
			});
			t.appendChild(tr);
		});
		return t;
	}

	/* Where each section's drawing failed: said on the page and on the console. */
	function guard(section, draw) {
		try {
			draw();
		} catch (e) {
			console.error("heaptap: " + section + ": " + e);
			var s = document.getElementById(section);
			if (s)
				s.appendChild(el("p", { class: "error" }, "Could not draw this: " + e));
		}
	}

	/* Tick steps of whole bytes: 1, 2, 5, 10... */
	var BYTE_INCRS = [];
	for (var e = 1; e < 1e16; e *= 10)
		BYTE_INCRS.push(e, 2 * e, 5 * e);

	function width(node) {
		return Math.max(400, Math.min(1200, (node.clientWidth || 900) - 10));
	}

	/*
	 * Horizontal bars, one per row of items (name, median, min, max), with min..max
	 * whiskers, drawn by uPlot (x is the item's index, laid out vertically).
	 */
	function whiskerBars(node, items, opts) {
		var xs = items.map(function (_, i) { return i; });
		var mid = items.map(function (it) { return it.median; });
		var height = Math.max(100, 40 + 22 * items.length);
		function whiskers(u) {
			var ctx = u.ctx;
			ctx.save();
			ctx.strokeStyle = "#333";
			ctx.lineWidth = 1.5 * devicePixelRatio;
			items.forEach(function (it, i) {
				var y = u.valToPos(i, "x", true);
				var lo = u.valToPos(it.min, "y", true), hi = u.valToPos(it.max, "y", true);
				var h = 5 * devicePixelRatio;
				ctx.beginPath();
				ctx.moveTo(lo, y);
				ctx.lineTo(hi, y);
				ctx.moveTo(lo, y - h);
				ctx.lineTo(lo, y + h);
				ctx.moveTo(hi, y - h);
				ctx.lineTo(hi, y + h);
				ctx.stroke();
			});
			ctx.restore();
		}
		var plot = new uPlot({
			width: width(node),
			height: height,
			legend: { show: false },
			cursor: { show: false },
			scales: {
				x: { time: false, ori: 1, dir: -1,
				     range: [-0.6, items.length - 0.4] },
				y: { ori: 0, range: function (u, lo, hi) {
					var top = Math.max.apply(null, items.map(function (it) { return it.max; }));
					var bot = Math.min(0, Math.min.apply(null, items.map(function (it) { return it.min; })));
					return [bot, top > bot ? top * 1.05 : bot + 1];
				} },
			},
			axes: [
				{ side: 3, size: opts.labelWidth || 330, gap: 6,
				  splits: function () { return xs; },
				  values: function (u, v) {
					return v.map(function (i) {
						var n = items[i] ? items[i].name : "";
						return n.length > 48 ? n.slice(0, 47) + "\u2026" : n;
					});
				  },
				  grid: { show: false } },
				{ side: 2, space: 90, incrs: BYTE_INCRS,
				  values: function (u, v) { return v.map(opts.format || bytes); } },
			],
			series: [
				{},
				{ label: opts.label || "median", fill: "#90caf9", stroke: "#1e88e5",
				  paths: uPlot.paths.bars({ size: [0.6, 18] }),
				  points: { show: false } },
			],
			hooks: { draw: [whiskers] },
		}, [xs, mid], node);
		node.setAttribute("data-series", plot.series.length - 1);
		node.setAttribute("data-bars", items.length);
		return plot;
	}

	return { OUTLIER: OUTLIER, bytes: bytes, data: data, el: el, baseName: baseName,
		 BYTE_INCRS: BYTE_INCRS, cell: cell, table: table, guard: guard, width: width, whiskerBars: whiskerBars };
})();
