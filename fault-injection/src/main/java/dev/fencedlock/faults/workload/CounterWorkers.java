package dev.fencedlock.faults.workload;

import dev.fencedlock.FencedLock;
import dev.fencedlock.LockException;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.history.HistoryRecorder;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Worker threads that increment one fenced counter under one lock, section after section, while a
 * test injects faults. Each worker has its own client (its own connections, its own lease
 * runtime), as separate processes would. Faults show up as sections not granted or as {@link
 * LockException}s, which are counted, not thrown: the run goes on.
 *
 * <p>The test divides the run into phases ({@link #phase(int)}) and waits for a number of sections
 * completed in the current phase ({@link #awaitCompleted}), so that "acquisitions continue after
 * the fault" is an event it waits for, not a time it sleeps. {@link #holdNext()} stops the next
 * worker inside its section, after its read and before its write, so a fault can hit a holder.
 *
 * <p>Thread-safe.
 */
public final class CounterWorkers implements AutoCloseable {
    /** One worker: its name in the history and its lock (from its own client). */
    public record Worker(String client, FencedLock lock) {}

    private final List<Worker> workers;
    private final Acquisition acquisition;
    private final EntityManagerFactory factory;
    private final String counter;
    private final HistoryRecorder recorder;
    private final Duration maxDwell;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger phase = new AtomicInteger();
    private final ConcurrentHashMap<Integer, AtomicLong> completedByPhase = new ConcurrentHashMap<>();
    private final AtomicLong notGranted = new AtomicLong();
    private final AtomicLong unavailable = new AtomicLong();
    private final List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    private final AtomicReference<Hold> nextHold = new AtomicReference<>();
    private final ReentrantLock progressLock = new ReentrantLock();
    private final Condition progress = progressLock.newCondition();
    private volatile boolean stopping;

    /**
     * @param maxDwell how long a worker may work between its read and its write: a random time up
     *     to this, so that faults also hit holders that are renewing; {@link Duration#ZERO} for none
     */
    public CounterWorkers(
            List<Worker> workers,
            Acquisition acquisition,
            EntityManagerFactory factory,
            String counter,
            HistoryRecorder recorder,
            Duration maxDwell) {
        this.workers = List.copyOf(workers);
        this.acquisition = acquisition;
        this.factory = factory;
        this.counter = counter;
        this.recorder = recorder;
        this.maxDwell = maxDwell;
    }

    public void start() {
        for (Worker worker : workers) {
            Thread thread = new Thread(() -> run(worker), "worker-" + worker.client());
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    private void run(Worker worker) {
        while (!stopping) {
            try {
                oneSection(worker);
            } catch (InterruptedException e) {
                return;
            } catch (LockException e) {
                unavailable.incrementAndGet();
            } catch (RuntimeException | Error e) {
                if (!stopping) {
                    unexpected.add(e);
                }
            }
        }
    }

    private void oneSection(Worker worker) throws InterruptedException {
        var entered = Section.enter(worker.lock(), acquisition, worker.client(), recorder);
        if (entered.isEmpty()) {
            notGranted.incrementAndGet();
            return;
        }
        int phaseAtEnter = phase.get();
        try (Section section = entered.get();
                FencedIncrement increment = section.beginFenced(factory, counter)) {
            Hold hold = nextHold.getAndSet(null);
            if (hold != null) {
                hold.holding(section);
            }
            if (!maxDwell.isZero()) {
                Thread.sleep(ThreadLocalRandom.current().nextLong(maxDwell.toMillis() + 1));
            }
            section.commit(increment);
        }
        completedByPhase.computeIfAbsent(phaseAtEnter, p -> new AtomicLong()).incrementAndGet();
        progressLock.lock();
        try {
            progress.signalAll();
        } finally {
            progressLock.unlock();
        }
    }

    /** Starts phase {@code number}; sections entered from now on count for it. */
    public void phase(int number) {
        phase.set(number);
    }

    /** Sections entered in phase {@code number} that have completed. */
    public long completed(int number) {
        AtomicLong count = completedByPhase.get(number);
        return count == null ? 0 : count.get();
    }

    /**
     * Waits until {@code count} sections entered in the current phase have completed.
     *
     * @return false if {@code timeout} passed first
     */
    public boolean awaitCompleted(long count, Duration timeout) throws InterruptedException {
        int current = phase.get();
        long deadline = System.nanoTime() + timeout.toNanos();
        progressLock.lock();
        try {
            while (completed(current) < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !unexpected.isEmpty()) {
                    return false;
                }
                progress.awaitNanos(left);
            }
            return true;
        } finally {
            progressLock.unlock();
        }
    }

    /**
     * Makes the next worker that has read the counter stop there, holding the lock, until {@link
     * Hold#release()}.
     */
    public Hold holdNext() {
        Hold hold = new Hold();
        nextHold.set(hold);
        return hold;
    }

    public long notGranted() {
        return notGranted.get();
    }

    /** Attempts that failed with a {@link LockException} (no quorum, ZooKeeper down). */
    public long unavailable() {
        return unavailable.get();
    }

    /** Anything else a worker threw: each one is a defect of the code under test or of the test. */
    public List<Throwable> unexpected() {
        return List.copyOf(unexpected);
    }

    /**
     * Stops the workers and waits for them; sections in progress finish first. If interrupted, the
     * workers are interrupted too and the flag is restored.
     */
    @Override
    public void close() {
        stopping = true;
        Hold hold = nextHold.getAndSet(null);
        if (hold != null) {
            hold.release();
        }
        try {
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(60));
                if (thread.isAlive()) {
                    thread.interrupt();
                    thread.join(TimeUnit.SECONDS.toMillis(10));
                }
            }
        } catch (InterruptedException e) {
            threads.forEach(Thread::interrupt);
            Thread.currentThread().interrupt();
        }
    }

    /** A worker stopped inside its section for the test to inject a fault. */
    public static final class Hold {
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private volatile Section section;

        private void holding(Section section) throws InterruptedException {
            this.section = section;
            reached.countDown();
            released.await();
        }

        /**
         * Waits until a worker holds here.
         *
         * @return the section held, or null if {@code timeout} passed first
         */
        public Section await(Duration timeout) throws InterruptedException {
            return reached.await(timeout.toNanos(), TimeUnit.NANOSECONDS) ? section : null;
        }

        /** Lets the worker go on to its write. */
        public void release() {
            released.countDown();
        }
    }
}
