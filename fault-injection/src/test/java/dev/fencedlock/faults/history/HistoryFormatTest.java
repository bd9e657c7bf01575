package dev.fencedlock.faults.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryFormatTest {
    @TempDir
    Path dir;

    @Test
    void aHistoryReadsBackAsWritten() throws IOException {
        History history = new History(
                List.of(
                        new CriticalSection("orders:eu/1 ü", "p1-t1", 281474976710656L, 5, 10, 15, 20, false),
                        new CriticalSection("orders:eu/1 ü", "p2-t1", 281474976710657L, 12, 21, 9, 30, true)),
                List.of(
                        new FencedWrite("orders", "p1-t1", "p1-t1#1", 281474976710656L, WriteOutcome.OK, "", 19),
                        new FencedWrite(
                                "orders",
                                "p2-t1",
                                "p2-t1#2",
                                281474976710657L,
                                WriteOutcome.UNKNOWN,
                                "timeout\tafter\n5 s",
                                29)));
        Path file = dir.resolve("h.history");

        history.writeTo(file);

        History read = History.readFrom(file);
        assertThat(read.sections()).isEqualTo(history.sections());
        assertThat(read.writes()).isEqualTo(history.writes());
        assertThat(read.writes().get(1).detail()).isEqualTo("timeout after 5 s");
    }

    @Test
    void historiesOfSeveralProcessesMerge() {
        CriticalSection a = new CriticalSection("l", "p1", 1, 0, 1, 2, 3, false);
        CriticalSection b = new CriticalSection("l", "p2", 2, 4, 5, 6, 7, false);

        History merged = History.merge(new History(List.of(a), List.of()), new History(List.of(b), List.of()));

        assertThat(merged.sections()).containsExactly(a, b);
    }

    @Test
    void aLineThatIsNoRecordIsReportedWithItsNumber() throws IOException {
        Path file = dir.resolve("bad.history");
        Files.writeString(file, "section\tl\tp1\t1\t0\t1\t2\t3\tfalse\nsection\tl\tp1\tnot-a-number\n");

        assertThatThrownBy(() -> History.readFrom(file))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("line 2");
    }
}
