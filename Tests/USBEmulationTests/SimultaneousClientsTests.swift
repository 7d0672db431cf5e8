import Foundation
import Testing

extension EmulatedBoards {
    /// Clients that start at the same moment, as a CI job's parallel steps do: every one
    /// initialises libusb, enumerates the board and hears its uevents. (umockdev's
    /// preload names a client's uevent socket after its descriptor alone, so two
    /// processes fought over one name: 19 of 480 clients here failed `libusb_init`
    /// before `Sources/EmulationPreload` gave each process a name of its own.)
    @Suite
    struct SimultaneousClientsTests {
        /// One line per client that did not do its work: `FAIL client=… round=… …`.
        static func failures(_ run: Emulate.Run) -> [String] {
            run.output.split(separator: "\n").filter { $0.hasPrefix("FAIL") }.map(String.init)
        }

        @Test("60 rounds of five clients started together (two lsusb, two hapbridge list, a libusb probe): every one initialises libusb and finds the board")
        func everyClientEnumerates() throws {
            // Each client's output must name the board: an enumeration that found
            // nothing is a failure too, not only a non-zero status.
            let script = #"""
                h=$1 probe=$2 rounds=60
                check() { # NAME ROUND PID OUT ERR PATTERN
                    if wait "$3"; then grep -q -- "$6" "$4" || echo "FAIL client=$1 round=$2 board-not-found out=$(tr '\n' ' ' <"$4")"
                    else echo "FAIL client=$1 round=$2 status=$? err=$(tr '\n' ' ' <"$5")"; fi
                }
                for i in $(seq $rounds); do
                    lsusb >a.out 2>a.err & a=$!
                    lsusb >b.out 2>b.err & b=$!
                    "$h" list >c.out 2>c.err & c=$!
                    "$h" list >d.out 2>d.err & d=$!
                    "$probe" list >e.out 2>e.err & e=$!
                    check lsusb "$i" $a a.out a.err 'ID 1209:0001'
                    check lsusb "$i" $b b.out b.err 'ID 1209:0001'
                    check hapbridge-list "$i" $c c.out c.err '^usb:1-1 '
                    check hapbridge-list "$i" $d d.out d.err '^usb:1-1 '
                    check probe-list "$i" $e e.out e.err 'port=1'
                done
                echo "rounds=$rounds"
                """#
            let run = try inScratch { dir in
                try Emulate.run([Emulate.hapbridge, "emulate", "bridge", "--", "sh", "-c", "cd \(dir) && " + script, "sh", Emulate.hapbridge, Emulate.probe])
            }
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("rounds=60"), "\(run)")
            #expect(Self.failures(run).isEmpty, "\(Self.failures(run).prefix(5).joined(separator: "\n"))")
        }

        @Test("10 rounds of six hotplug watchers started together: every one hears the board leave and arrive again")
        func everyClientHearsHotplug() throws {
            // A watcher whose uevent socket another process took would hear nothing.
            let script = #"""
                h=$1 probe=$2 rounds=10
                for r in $(seq $rounds); do
                    pids=""
                    for w in 1 2 3 4 5 6; do "$probe" watch >w$w.out 2>&1 & pids="$pids $!"; done
                    # Each registers its callback before the unplug (bounded: a watcher that dies says why).
                    for w in 1 2 3 4 5 6; do
                        n=0
                        until grep -q '^watching' w$w.out; do
                            n=$((n + 1)); [ $n -lt 600 ] || { echo "FAIL client=watch round=$r never-watching out=$(tr '\n' ' ' <w$w.out)"; break; }
                            sleep 0.1
                        done
                    done
                    "$h" emulate control unplug >/dev/null && "$h" emulate control replug >/dev/null || echo "FAIL control round=$r"
                    w=0
                    for p in $pids; do
                        w=$((w + 1))
                        wait $p || echo "FAIL client=watch round=$r status=$? out=$(tr '\n' ' ' <w$w.out)"
                        grep -q 'event=left' w$w.out && grep -q 'event=arrived' w$w.out || echo "FAIL client=watch round=$r missed out=$(tr '\n' ' ' <w$w.out)"
                    done
                done
                echo "rounds=$rounds"
                """#
            let run = try inScratch { dir in
                try Emulate.run([Emulate.hapbridge, "emulate", "bridge", "--", "sh", "-c", "cd \(dir) && " + script, "sh", Emulate.hapbridge, Emulate.probe])
            }
            #expect(run.status == 0, "\(run)")
            #expect(run.output.contains("rounds=10"), "\(run)")
            #expect(Self.failures(run).isEmpty, "\(Self.failures(run).prefix(5).joined(separator: "\n"))")
        }

        /// `body` with a fresh directory for the clients' output files, removed after.
        func inScratch<T>(_ body: (String) throws -> T) throws -> T {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("simultaneous-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            return try body(dir)
        }
    }
}
