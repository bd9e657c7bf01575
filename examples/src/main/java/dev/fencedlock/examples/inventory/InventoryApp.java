package dev.fencedlock.examples.inventory;

import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.faults.StaleHolders;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.function.IntFunction;

/**
 * The inventory example: workers sell the last units of a few hot SKUs under per-SKU fenced
 * locks, each sale calling a shipping service (its own process and database) with the lease's
 * token; one worker stalls past its lease in the middle of a transaction and its shipping call
 * arrives late, and the run ends with a summary that proves no unit was oversold, the stale write
 * was refused by the database and the stale call by the shipping service, and every unit sold was
 * shipped once. Exits 0 when every invariant holds, 1 when one does not, 2 on bad arguments.
 */
public final class InventoryApp {
    /** The shortest lease of the order whose lock is broken; see {@link #orderUnderABrokenLock}. */
    static final Duration BROKEN_ORDER_LEASE = Duration.ofSeconds(10);

    private InventoryApp() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.console() != null));
    }

    /** Runs the example and returns the process exit code. */
    static int run(String[] args, PrintStream out, boolean terminal) {
        RunSettings settings;
        try {
            settings = RunSettings.parse(args);
        } catch (IllegalArgumentException e) {
            out.println("error: " + e.getMessage());
            out.print(RunSettings.USAGE);
            return 2;
        }
        if (settings.help()) {
            out.print(RunSettings.USAGE);
            return 0;
        }
        try {
            return settings.workerProcess() ? runWorkerProcess(settings, out) : coordinate(settings, out, terminal);
        } catch (IllegalArgumentException e) {
            out.println("error: " + e.getMessage());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println("interrupted");
            return 1;
        } catch (Exception e) {
            out.println("error: the run failed: " + e);
            e.printStackTrace(out);
            return 1;
        }
    }

    private static int coordinate(RunSettings settings, PrintStream out, boolean terminal) throws Exception {
        try (ShippingProcess shippingService = ShippingProcess.start(settings.workers() + 2);
                LockSetup locks = LockSetup.resolve(settings);
                DatabaseSetup databaseSetup = DatabaseSetup.resolve(settings);
                InventoryDatabase database = InventoryDatabase.open(
                        databaseSetup.jdbcUrl(),
                        settings.dbUser(),
                        settings.dbPassword(),
                        settings.workers() + 2,
                        true)) {
            long initial = (long) settings.skus() * settings.stockPerSku();
            database.reset(settings.skus(), settings.stockPerSku());
            out.printf(
                    "inventory run: %d workers in %d process(es), %d SKUs x %d units, lease %d ms, %s%n",
                    settings.workers(),
                    settings.processes(),
                    settings.skus(),
                    settings.stockPerSku(),
                    settings.lease().toMillis(),
                    settings.stall().isZero()
                            ? "no stall"
                            : "worker " + settings.stallWorker() + " stalls "
                                    + settings.stall().toMillis() + " ms inside its first sale,"
                                    + " and its shipping call arrives after a newer holder's");
            if (settings.breakWorker().isPresent()) {
                out.println(
                        canBreak(locks)
                                ? "worker " + settings.breakWorker().getAsInt()
                                        + " has its lock deleted on the backend before its first transaction,"
                                        + " and a newer holder writes first"
                                : "no lock is broken: the " + locks.config().backend()
                                        + " backend lives inside this process");
            }
            out.println("locks: " + locks.describe() + "; database: " + databaseSetup.describe());
            URI shippingUrl = shippingService.uri();
            out.println("shipping: a service in its own process at " + shippingUrl
                    + ", with its own embedded H2 and fence table; every sale calls it with its lease's token");
            WorkerTally tally = new WorkerTally();
            long start = System.nanoTime();
            try (Progress progress = new Progress(out, terminal, initial, () -> soldSoFar(database, initial)).start()) {
                if (settings.processes() == 1) {
                    runWorkers(settings, locks, database, shippingUrl, tally, () -> {});
                } else {
                    WorkerProcesses.runAll(
                            settings, locks.workerProcessArgs(), databaseSetup.jdbcUrl(), shippingUrl, tally);
                }
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            ShippingClient shipping = new ShippingClient(shippingUrl, new WorkerTally());
            ShippingSnapshot shipped =
                    ShippingSnapshot.of(shipping.shipments(), database.orderKeys(), shipping.refusals());
            RunSummary summary = new RunSummary(
                    locks.describe(),
                    initial,
                    database.snapshot(),
                    shipped,
                    tally,
                    !settings.stall().isZero(),
                    settings.breakWorker().isPresent() && canBreak(locks),
                    elapsed);
            summary.print(out);
            return summary.passed() ? 0 : 1;
        }
    }

    private static long soldSoFar(InventoryDatabase database, long initial) {
        try {
            return initial - database.snapshot().remaining();
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int runWorkerProcess(RunSettings settings, PrintStream out) throws Exception {
        try (LockSetup locks = LockSetup.resolve(settings);
                InventoryDatabase database = InventoryDatabase.open(
                        settings.jdbcUrl().orElseThrow(() -> new IllegalArgumentException("--jdbc-url is required")),
                        settings.dbUser(),
                        settings.dbPassword(),
                        settings.workers() + 1,
                        false)) {
            URI shippingUrl = settings.shippingUrl()
                    .orElseThrow(() -> new IllegalArgumentException("--shipping-url is required"));
            WorkerTally tally = new WorkerTally();
            runWorkers(settings, locks, database, shippingUrl, tally, () -> WorkerProcesses.readyAndAwaitStart(out));
            out.println(WorkerProcesses.resultLine(tally));
            return 0;
        }
    }

    /**
     * Runs this process's workers, their sales calling the shipping service at {@code shippingUrl}:
     * first the broken-lock order (if this process has that worker), then {@code beforeWorkers} (a
     * worker process reports ready and waits for the others, so that no process sells the stock out
     * while another is still setting up its faults), then the workers.
     */
    private static void runWorkers(
            RunSettings settings,
            LockSetup locks,
            InventoryDatabase database,
            URI shippingUrl,
            WorkerTally tally,
            WorkerProcesses.StartGate beforeWorkers)
            throws Exception {
        boolean breaking = settings.breakWorker().isPresent() && canBreak(locks);
        StaleHolders breaker = breaking ? StaleHolders.forConfig(locks.config()) : null;
        ShippingClient shipping = new ShippingClient(shippingUrl, tally);
        shipping.checkReachable();
        try (LockClient client = locks.newClient(database)) {
            OrderPlacer placer = new OrderPlacer(client, database.entityManagerFactory(), settings.lease(), shipping);
            if (breaking) {
                database.warmUp();
                orderUnderABrokenLock(settings, client, database, shipping, breaker, tally);
            }
            beforeWorkers.pass();
            Interference stall = Interference.stallWithLateCall(settings.stall(), shipping, placer, tally);
            IntFunction<Interference> firstOrder = index -> settings.stalls(index) ? stall : Interference.NONE;
            new Workers(placer, settings, tally, firstOrder).runAll();
        }
    }

    /**
     * The break-lock worker's first order, before the workers start: its lock is deleted on the
     * backend right after the grant and a newer holder sells first, so its own transaction is
     * refused by the database. It runs alone and with a lease of at least {@link
     * #BROKEN_ORDER_LEASE}, so that the backend cannot tell the worker its lease was lost before
     * the newer holder has committed (ZooKeeper checks a fixed lease's node every third of its
     * validity, about every 2 s with the default session timeout; {@link InventoryDatabase#warmUp}
     * keeps Hibernate's start-up out of that window): the worker still believes its lease valid, and
     * only the database stands in its way. The newer holder takes the same lease: its sale is the
     * run's first transaction, slow in a cold JVM, and with the run's own lease (1 s in the tests) it
     * ran out before the commit on a loaded machine (load average 10 to 20 on two cores), so no newer
     * sale overtook the broken lock.
     */
    private static void orderUnderABrokenLock(
            RunSettings settings,
            LockClient client,
            InventoryDatabase database,
            ShippingClient shipping,
            StaleHolders breaker,
            WorkerTally tally)
            throws InterruptedException {
        for (int index = 0; index < settings.workers(); index++) {
            if (settings.breaksLock(index)) {
                Duration lease =
                        settings.lease().compareTo(BROKEN_ORDER_LEASE) > 0 ? settings.lease() : BROKEN_ORDER_LEASE;
                OrderPlacer believer = new OrderPlacer(client, database.entityManagerFactory(), lease, shipping);
                tally.count(believer.place(
                        InventoryDatabase.skuName(0),
                        "worker-" + (settings.workerOffset() + index),
                        Interference.breakLock(breaker, believer, tally),
                        tally.waits()));
            }
        }
    }

    /** Breaking a lock needs a backend outside this process to break it on. */
    private static boolean canBreak(LockSetup locks) {
        String backend = locks.config().backend();
        return backend.equals("redlock") || backend.equals("zookeeper");
    }
}
