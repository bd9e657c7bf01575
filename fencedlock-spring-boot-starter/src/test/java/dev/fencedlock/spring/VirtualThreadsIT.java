package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.app.Counters;
import dev.fencedlock.spring.app.InventoryApplication;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisServers;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * An application with {@code spring.threads.virtual.enabled=true}: 1,000 virtual threads of its
 * task executor call one {@code @Locked @Transactional} method on 10 lock names, on every backend
 * (local, redlock on three real Redis servers, zookeeper on a Curator {@code TestingServer}, jdbc in
 * the application's PostgreSQL), with leases short enough that holders see their lease renewed.
 * Every call completes within a bounded wait (no deadlock), no two calls hold one name at once,
 * tokens rise strictly per name, no update is lost in the fenced table, and JFR records no
 * {@code jdk.VirtualThreadPinned} event in fencedlock's code: no carrier thread is held while a
 * virtual thread waits there for a lock or a renewal. Every pin is printed with its stack.
 *
 * <p>Virtual threads exist from Java 21: on Java 17 (the build's baseline) these tests are skipped,
 * on Java 21 and later they run, and {@code .ci/run} runs them on Java 25. Java 24 and later no
 * longer pin a carrier for a monitor (JEP 491), so on Java 25 this catches the pins that remain
 * (native frames, class initializers); on Java 21 it also catches {@code synchronized} around a wait.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class VirtualThreadsIT {
    private static final int CALLS = 1_000;
    private static final int NAMES = 10;
    /** Calls per name that hold on until their lease has been renewed (see {@link #holding}). */
    private static final int RENEWALS_PER_NAME = 2;
    /** Renewal runs every third of it; long enough that a loaded machine still renews in time. */
    private static final Duration LEASE_TIME = Duration.ofSeconds(6);

    private static final Duration ALL_DONE = Duration.ofMinutes(3);
    private static final String PINNED = "jdk.VirtualThreadPinned";
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    @BeforeAll
    static void onlyWhereVirtualThreadsExist() {
        assumeTrue(IS_VIRTUAL != null, "virtual threads need Java 21 or later; this is Java " + Runtime.version());
    }

    @Test
    void local() throws Exception {
        lockOnVirtualThreads("local");
    }

    @Test
    void redlock() throws Exception {
        try (RedisServers servers = RedisServers.start(3)) {
            // just started: wait out the restart quarantine instead of switching it off
            servers.awaitUptime(LEASE_TIME);
            lockOnVirtualThreads(
                    "redlock",
                    "--fencedlock.redlock.nodes=" + servers.nodes(),
                    "--fencedlock.redlock.restart-quarantine=" + LEASE_TIME.toSeconds() + "s",
                    // Each waiter polls every retry delay: at the default 200 ms, this client's 990
                    // waiters make about 5,000 attempts a second on two cores, more than the
                    // connection opener's queue takes, and a release it rejects leaves the lock
                    // taken until its lease runs out. Local releases wake the next waiter anyway.
                    "--fencedlock.redlock.retry-delay=2s");
        }
    }

    @Test
    void zookeeper() throws Exception {
        try (TestingServer server = ZooKeeperServers.start()) {
            lockOnVirtualThreads("zookeeper", "--fencedlock.zookeeper.connect=" + server.getConnectString());
        }
    }

    @Test
    void jdbc() throws Exception {
        // The locks in the application's own PostgreSQL schema, through its pool of 12. Every attempt
        // of a waiter takes a connection: 990 waiters polling every 250 ms (the default) starve the
        // holders' renewals and releases on a loaded machine. A release wakes a waiter through
        // NOTIFY anyway, so polling rarely costs no latency.
        lockOnVirtualThreads("jdbc", "--fencedlock.initialize-schema=always", "--fencedlock.jdbc.poll-interval=5s");
    }

    /**
     * The control: a virtual thread that parks in a class initializer pins its carrier on every Java
     * version, and the recording must see it, or a count of zero above would prove nothing.
     */
    @Test
    void theRecordingSeesACarrierPinnedByAClassInitializer() throws Exception {
        List<RecordedEvent> pins;
        try (PinRecording recording = PinRecording.start()) {
            Thread thread = startVirtualThread(ParksInItsInitializer::touch);
            thread.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(thread.isAlive())
                    .as("the virtual thread is still running")
                    .isFalse();
            pins = recording.stop();
        }
        assertThat(pins)
                .as("pinned events naming the initializer")
                .anySatisfy(pin -> assertThat(frames(pin))
                        .anyMatch(frame -> frame.startsWith(ParksInItsInitializer.class.getName() + ".<clinit>")));
    }

    private void lockOnVirtualThreads(String backend, String... backendArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "--spring.threads.virtual.enabled=true",
                "--test.database=POSTGRESQL",
                "--fencedlock.backend=" + backend,
                "--fencedlock.lease-time=" + LEASE_TIME.toSeconds() + "s"));
        args.addAll(List.of(backendArgs));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(InventoryApplication.class)
                .web(WebApplicationType.NONE)
                .run(args.toArray(String[]::new))) {
            Counters counters = app.getBean(Counters.class);
            AsyncTaskExecutor executor = app.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
            // the first call loads and initializes the classes on the path, which pins (see the control)
            executor.submit(() -> counters.increment(
                            "vt-warm-up", lease -> holding(lease, new Holds(), true, new AtomicInteger())))
                    .get(1, TimeUnit.MINUTES);

            Map<String, Holds> holds = new ConcurrentHashMap<>();
            AtomicInteger onVirtualThreads = new AtomicInteger();
            List<CompletableFuture<Long>> calls = new ArrayList<>();
            List<RecordedEvent> pins;
            try (PinRecording recording = PinRecording.start()) {
                for (int i = 0; i < CALLS; i++) {
                    String name = "vt-" + backend + "-" + (i % NAMES);
                    Holds named = holds.computeIfAbsent(name, n -> new Holds());
                    boolean awaitRenewal = (i / NAMES) % (CALLS / NAMES / RENEWALS_PER_NAME) == 0;
                    calls.add(executor.submitCompletable(() ->
                            counters.increment(name, lease -> holding(lease, named, awaitRenewal, onVirtualThreads))));
                }
                awaitAll(calls);
                pins = recording.stop();
            }

            assertThat(onVirtualThreads)
                    .as("calls that ran on a virtual thread")
                    .hasValue(CALLS);
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            for (Map.Entry<String, Holds> entry : holds.entrySet()) {
                String name = entry.getKey();
                Holds named = entry.getValue();
                assertThat(named.overlaps)
                        .as("holders of %s that found another inside", name)
                        .hasValue(0);
                List<Long> tokens = new ArrayList<>(named.tokens);
                assertThat(tokens)
                        .as("tokens of %s in the order of entry", name)
                        .hasSize(CALLS / NAMES);
                assertThat(tokens)
                        .as("tokens of %s strictly increasing", name)
                        .isSorted()
                        .doesNotHaveDuplicates();
                assertThat(counters.read(name))
                        .as("the fenced counter %s: no lost update", name)
                        .isEqualTo(CALLS / NAMES);
                assertThat(jdbc.queryForObject(
                                "select token from fencedlock_fence where lock_name = ?",
                                Long.class,
                                "counter:" + name))
                        .as("the fence row of %s holds the last token", name)
                        .isEqualTo(tokens.get(tokens.size() - 1));
            }
            List<Long> written =
                    calls.stream().map(CompletableFuture::join).sorted().collect(Collectors.toList());
            assertThat(written)
                    .as("each value 1..%d written once per name", CALLS / NAMES)
                    .isEqualTo(LongStream.rangeClosed(1, CALLS / NAMES)
                            .boxed()
                            .flatMap(value -> Collections.nCopies(NAMES, value).stream())
                            .collect(Collectors.toList()));
            List<RecordedEvent> inFencedLock =
                    pins.stream().filter(VirtualThreadsIT::inFencedLock).collect(Collectors.toList());
            System.out.printf(
                    "%s: %d calls on virtual threads, %d carriers pinned, %d of them in fencedlock code%s%n",
                    backend, CALLS, pins.size(), inFencedLock.size(), pins.isEmpty() ? "" : ": " + describe(pins));
            assertThat(inFencedLock)
                    .as("carriers pinned in fencedlock code: %s", describe(inFencedLock))
                    .isEmpty();
        }
    }

    /**
     * Inside the lock, in the transaction: counts the holders of the name until the transaction has
     * completed (the lock is released after that), records the token, and for some calls holds on
     * until the lease has been renewed.
     */
    private static void holding(Lease lease, Holds named, boolean awaitRenewal, AtomicInteger onVirtualThreads) {
        if (isVirtual(Thread.currentThread())) {
            onVirtualThreads.incrementAndGet();
        }
        if (named.inside.incrementAndGet() > 1) {
            named.overlaps.incrementAndGet();
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                named.inside.decrementAndGet();
            }
        });
        named.tokens.add(lease.token());
        if (awaitRenewal) {
            // a renewal moves the end of validity on by the time since the grant (a third of the lease)
            long endAtEntry = validityEnd(lease);
            try {
                Await.until(
                        "a renewal of lease " + lease.token(),
                        LEASE_TIME,
                        () -> validityEnd(lease) - endAtEntry > LEASE_TIME.toNanos() / 6);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** When the lease's validity ends, on {@link System#nanoTime()}. */
    private static long validityEnd(Lease lease) {
        return System.nanoTime() + lease.remaining().toNanos();
    }

    private static void awaitAll(List<CompletableFuture<Long>> calls) throws InterruptedException {
        try {
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                    .get(ALL_DONE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            long done = calls.stream().filter(CompletableFuture::isDone).count();
            throw new AssertionError(
                    done + " of " + CALLS + " calls completed within " + ALL_DONE + ": a deadlock or a lost wake-up");
        } catch (ExecutionException e) {
            List<Throwable> failures = calls.stream()
                    .filter(CompletableFuture::isCompletedExceptionally)
                    .map(call -> call.handle((value, failure) -> failure).join())
                    .collect(Collectors.toList());
            AssertionError error = new AssertionError(failures.size() + " of " + CALLS + " calls failed; the first: "
                    + failures.get(0).getMessage());
            error.initCause(failures.get(0));
            throw error;
        }
    }

    /** What the calls on one lock name saw while holding it. */
    private static final class Holds {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final Queue<Long> tokens = new ConcurrentLinkedQueue<>();
    }

    /** A JFR recording of pinned virtual threads, however short, with their stacks. */
    private static final class PinRecording implements AutoCloseable {
        private final Recording recording = new Recording();

        static PinRecording start() {
            PinRecording pins = new PinRecording();
            pins.recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
            pins.recording.start();
            return pins;
        }

        /** Stops the recording and returns its pinned events. */
        List<RecordedEvent> stop() throws IOException {
            recording.stop();
            Path file = Files.createTempFile("virtual-threads", ".jfr");
            try {
                recording.dump(file);
                return RecordingFile.readAllEvents(file).stream()
                        .filter(event -> event.getEventType().getName().equals(PINNED))
                        .collect(Collectors.toList());
            } finally {
                Files.deleteIfExists(file);
            }
        }

        @Override
        public void close() {
            recording.close();
        }
    }

    /** Parks its first caller inside the class initializer. */
    private static final class ParksInItsInitializer {
        static {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }

        static void touch() {}
    }

    private static List<String> frames(RecordedEvent pin) {
        if (pin.getStackTrace() == null) {
            return List.of();
        }
        return pin.getStackTrace().getFrames().stream()
                .map(VirtualThreadsIT::frame)
                .collect(Collectors.toList());
    }

    private static String frame(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + ":" + frame.getLineNumber();
    }

    /**
     * Whether the pin is a wait in fencedlock's code: a park or {@code Object.wait} (Java 24 and
     * later name the blocking operation; a monitor enter there pins only when the VM cannot let the
     * thread go, as while it loads or links a class), and walking down from the top of the stack, a
     * {@code dev.fencedlock} frame of the library (not of these tests, whose calls all run under the
     * starter's interceptor) comes before any class loading or initialization outside fencedlock.
     * Loading a class pins on every Java version (JEP 491), once per class: such pins are printed,
     * not counted.
     */
    private static boolean inFencedLock(RecordedEvent pin) {
        if (pin.hasField("blockingOperation") && "Contended monitor enter".equals(pin.getString("blockingOperation"))) {
            return false;
        }
        for (String frame : frames(pin)) {
            if (frame.startsWith("dev.fencedlock.")) {
                return !frame.startsWith("dev.fencedlock.spring.app.")
                        && !frame.startsWith(VirtualThreadsIT.class.getName());
            }
            if (frame.startsWith("java.lang.ClassLoader.")
                    || frame.startsWith("jdk.internal.loader.")
                    || frame.contains(".<clinit>:")) {
                return false;
            }
        }
        return false;
    }

    private static String describe(List<RecordedEvent> pins) {
        return pins.stream()
                .limit(5)
                .map(pin -> (pin.hasField("blockingOperation") ? pin.getString("blockingOperation") + ", " : "")
                        + (pin.hasField("pinnedReason") ? pin.getString("pinnedReason") + ", " : "")
                        + pin.getDuration().toMillis() + " ms at "
                        + frames(pin).stream().limit(12).collect(Collectors.joining(" < ")))
                .collect(Collectors.joining("; "));
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup()
                    .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null; // before Java 21
        }
    }

    private static Thread startVirtualThread(Runnable task) {
        try {
            return (Thread) MethodHandles.publicLookup()
                    .findStatic(Thread.class, "startVirtualThread", MethodType.methodType(Thread.class, Runnable.class))
                    .invoke(task);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot start a virtual thread", e);
        }
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
