package dev.fencedlock.faults.history;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What the clients of one run recorded: their critical sections and their writes. Histories of
 * several processes on one machine are merged with {@link #merge}. Immutable.
 */
public record History(List<CriticalSection> sections, List<FencedWrite> writes) {
    public static final History EMPTY = new History(List.of(), List.of());

    public History {
        sections = List.copyOf(sections);
        writes = List.copyOf(writes);
    }

    /** All sections and writes of {@code histories}, one history. */
    public static History merge(Collection<History> histories) {
        List<CriticalSection> sections = new ArrayList<>();
        List<FencedWrite> writes = new ArrayList<>();
        for (History history : histories) {
            sections.addAll(history.sections());
            writes.addAll(history.writes());
        }
        return new History(sections, writes);
    }

    /** Same as {@link #merge(Collection)}. */
    public static History merge(History... histories) {
        return merge(List.of(histories));
    }

    /** The same sections, and only the writes to {@code counter}. */
    public History writesTo(String counter) {
        return new History(
                sections,
                writes.stream().filter(w -> w.counter().equals(counter)).toList());
    }

    /** Only the sections of {@code lock} and the writes to {@code counter}: one scenario of a run. */
    public History only(String lock, String counter) {
        return new History(
                sections.stream().filter(s -> s.lock().equals(lock)).toList(),
                writesTo(counter).writes());
    }

    /** Reads a history written by {@link #writeTo}. */
    public static History readFrom(Path file) throws IOException {
        return HistoryFormat.read(file);
    }

    /** Writes this history as text, one record a line (see {@link HistoryFormat}). */
    public void writeTo(Path file) throws IOException {
        HistoryFormat.write(this, file);
    }
}
