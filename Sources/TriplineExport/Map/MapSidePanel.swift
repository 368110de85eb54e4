#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineGeography
import TriplineStore

extension MapPage {
    // MARK: The side panel

    mutating func writeSide(period: String) {
        out.append("<aside id=\"side\">\n<h1>")
        out.append(Markup.text(parameters.title))
        out.append("</h1>\n<p class=\"sub\"><span id=\"period\" data-all=\"")
        out.append(Markup.attribute(period))
        out.append("\">")
        out.append(Markup.text(period))
        out.append("</span> · ")
        let names = selection.filter.device.map { [$0] } ?? selection.deviceNames
        if names.count == 1 {
            out.append("device ")
            out.append(Markup.text(names[0]))
        } else {
            out.append(names.isEmpty ? "no devices" : "\(names.count) devices")
        }
        out.append("</p>\n")
        out.append("<div id=\"picker\"><label for=\"month\">Show</label> <select id=\"month\"><option value=\"\">whole period</option></select> <select id=\"day\" disabled=\"disabled\"><option value=\"\">every day</option></select>")
        if deviceOrder.count > 1 {
            out.append(" <select id=\"dev\" title=\"Device\"><option value=\"\">every device</option>")
            for (k, id) in deviceOrder.enumerated() {
                out.append("<option value=\"\(k)\">")
                out.append(Markup.text(selection.deviceNamesByID[id] ?? ""))
                out.append("</option>")
            }
            out.append("</select>")
        }
        out.append("</div>\n")
        out.append("<section id=\"summary\">\n")
        writeSummary()
        out.append("</section>\n")
        writeChart()
        // Filled by the script from the data's "tl": the picked period's days, one after another.
        if !timeline.isEmpty { out.append("<section id=\"timeline\" aria-label=\"Timeline\"></section>\n") }
        out.append("</aside>\n")
    }

    mutating func writeSummary() {
        if selection.isEmpty {
            out.append("<p class=\"nothing\">Nothing to show: there are no trips or visits")
            if let device = selection.filter.device {
                out.append(" for device ")
                out.append(Markup.text(device))
            }
            out.append(" in this period. Import data and run <code>tripline rebuild</code>, or choose other dates.</p>\n")
            return
        }
        // The days' distance and moving time, as the chart below (a trip over midnight counts on each day by its part).
        let distance = selection.distanceM
        let moving = selection.movingS
        out.append("<dl class=\"stats\">")
        for (name, value) in [
            ("Distance", NumberText.distance(distance)), ("Moving time", NumberText.duration(moving)),
            ("Trips", NumberText.grouped(selection.trips.count)), ("Visits", NumberText.grouped(selection.visits.count)),
        ] {
            out.append("<div><dt>\(name)</dt><dd>\(value)</dd></div>")
        }
        out.append("</dl>\n")
        if !modes.isEmpty {
            out.append("<h2>Time by mode</h2>\n<table class=\"modes\">")
            for (i, mode) in modes.enumerated() {
                out.append("<tr><td><span class=\"sw m\(i)\"></span>")
                out.append(Markup.text(mode))
                out.append("</td><td>\(NumberText.duration(modeTime[i]))</td><td>\(NumberText.distance(modeDistance[i]))</td></tr>")
            }
            out.append("</table>\n")
        }
        let top = rankedPlaces().prefix(MapPage.topPlaces)
        if !top.isEmpty {
            out.append("<h2>Top places</h2>\n<ol class=\"places\">")
            for entry in top {
                out.append("<li><span class=\"pn\">")
                out.append(Markup.text(selection.places[entry.id]!.name))
                out.append("</span><span class=\"pv\">\(NumberText.grouped(entry.visits)) visit\(entry.visits == 1 ? "" : "s") · \(NumberText.duration(entry.dwellS))</span></li>")
            }
            out.append("</ol>\n")
        }
    }

    static let topPlaces = 8

    /// The per-day distance bar chart, one bar per local day from the first to the last day with data.
    mutating func writeChart() {
        let totals = selection.dayDistances
        guard let first = totals.first?.day, let last = totals.last?.day else { return }
        let width = 350.0
        let height = 130.0
        let top = 14.0
        let bottom = 18.0
        let count = Double(last - first + 1)
        let slot = width / count
        let barWidth = max(0.4, slot * (slot > 3 ? 0.8 : 1))
        let maxMetres = max(1, totals.map(\.metres).max() ?? 1)
        out.append("<h2>Distance per day</h2>\n<svg id=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"Distance per day\">\n")
        out.append("<line x1=\"0\" y1=\"\(Int(height - bottom))\" x2=\"\(Int(width))\" y2=\"\(Int(height - bottom))\"/>\n")
        out.append("<text x=\"0\" y=\"10\">max \(Markup.text(NumberText.distance(maxMetres)))</text>\n")
        for entry in totals {
            let h = max(entry.metres > 0 ? 1 : 0, (entry.metres / maxMetres) * (height - top - bottom))
            let x = Double(entry.day - first) * slot + (slot - barWidth) / 2
            out.append("<rect class=\"bar\" data-d=\"\(entry.day)\" x=\"\(NumberText.fixed(x, decimals: 2))\" y=\"\(NumberText.fixed(height - bottom - h, decimals: 2))\" width=\"\(NumberText.fixed(barWidth, decimals: 2))\" height=\"\(NumberText.fixed(h, decimals: 2))\"><title>")
            out.append(Markup.text(CivilTime.date(day: entry.day) + ": " + NumberText.distance(entry.metres)))
            out.append("</title></rect>\n")
        }
        func date(_ day: Int) -> String { CivilTime.date(day: day) }
        if last - first >= 45 {
            // Month ticks, labelled with the month's name where there is room (the period is in the heading).
            let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            for day in first...last {
                let civil = CivilTime.civilFromDays(day)
                guard civil.day == 1 else { continue }
                let x = NumberText.fixed(Double(day - first) * slot, decimals: 1)
                out.append("<line x1=\"\(x)\" y1=\"\(Int(height - bottom))\" x2=\"\(x)\" y2=\"\(Int(height - bottom + 4))\"/>")
                if slot * 28 >= 22 && last - day >= 8 {
                    out.append("<text x=\"\(NumberText.fixed(Double(day - first) * slot + 1.5, decimals: 1))\" y=\"\(Int(height - bottom + 13))\">\(names[civil.month - 1])</text>")
                }
                out.append("\n")
            }
        } else {
            out.append("<text x=\"0\" y=\"\(Int(height - 4))\">\(date(first))</text>\n")
            if last != first {
                out.append("<text x=\"\(Int(width))\" y=\"\(Int(height - 4))\" text-anchor=\"end\">\(date(last))</text>\n")
            }
        }
        out.append("</svg>\n")
    }
}
