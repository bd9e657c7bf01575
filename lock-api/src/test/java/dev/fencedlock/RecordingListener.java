package dev.fencedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records every event as a line of text, and lets a test wait for one. */
public final class RecordingListener implements LockEventListener {
    private final LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    @Override
    public void acquireFinished(String lockName, String backend, AcquireOutcome outcome, Duration elapsed) {
        events.add("acquire " + lockName + " " + backend + " " + outcome);
    }

    @Override
    public void leaseGranted(Lease lease) {
        events.add("granted " + lease.lockName() + " " + lease.backend() + " " + lease.token());
    }

    @Override
    public void leaseEnded(Lease lease) {
        events.add("ended " + lease.lockName() + " " + lease.backend() + " " + lease.token());
    }

    @Override
    public void leaseLost(Lease lease, LeaseLostException cause) {
        events.add("lost " + lease.lockName() + " " + cause.reason() + " " + lease.token());
    }

    @Override
    public void backendSwitched(String lockName, String from, String to, LockException cause) {
        events.add("switched " + lockName + " " + from + "->" + to + " "
                + (cause == null ? "-" : cause.getClass().getSimpleName()));
    }

    /** Takes the next event, waiting up to 30 s for it; fails if none comes. */
    public String next() throws InterruptedException {
        String event = events.poll(30, TimeUnit.SECONDS);
        if (event == null) {
            throw new AssertionError("no event within 30 s; seen so far: " + seen);
        }
        seen.add(event);
        return event;
    }

    /** The events not taken yet, without waiting. */
    public List<String> pending() {
        List<String> rest = new ArrayList<>();
        events.drainTo(rest);
        seen.addAll(rest);
        return rest;
    }
}
