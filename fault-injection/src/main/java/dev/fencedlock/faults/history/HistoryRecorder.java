package dev.fencedlock.faults.history;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the sections and writes of the clients of one process. Thread-safe: any number of
 * client threads record into one recorder.
 */
public final class HistoryRecorder {
    private final List<CriticalSection> sections = new ArrayList<>();
    private final List<FencedWrite> writes = new ArrayList<>();

    public synchronized void record(CriticalSection section) {
        sections.add(section);
    }

    public synchronized void record(FencedWrite write) {
        writes.add(write);
    }

    /** What was recorded so far. */
    public synchronized History snapshot() {
        return new History(sections, writes);
    }
}
