package dev.fencedlock.faults.process;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.faults.db.DatabaseSettings;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.Section;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A lock client in a JVM of its own, so that a test can stop the whole process with SIGSTOP:
 * unlike a paused thread, a stopped process renews nothing and sends no ZooKeeper heartbeats. It
 * takes its orders on standard input, one a line, and answers on standard output; it logs to
 * standard error.
 *
 * <pre>
 * (start)             -&gt; READY
 * ROUND &lt;lock&gt; &lt;counter&gt; -&gt; HOLDING &lt;token&gt; &lt;value read&gt;   or NOT_GRANTED
 * WRITE               -&gt; WROTE &lt;outcome&gt; &lt;detail&gt;, then DONE lost=&lt;true|false&gt;
 * ENTER &lt;lock&gt; &lt;counter&gt; -&gt; HOLDING &lt;token&gt;, then AT_GUARD   or NOT_GRANTED
 * GO                  -&gt; WROTE &lt;outcome&gt; &lt;detail&gt;, then DONE lost=&lt;true|false&gt;
 * EXIT                -&gt; writes the history file, BYE, exit status 0
 * </pre>
 *
 * <p>Two pause points, where the test stops the process with SIGSTOP:
 *
 * <ul>
 *   <li>Inside the fenced transaction: {@code ROUND} acquires an auto-renewing lease (waiting up to
 *       {@code --wait}), enters a recorded section and reads the counter in a fenced transaction,
 *       whose guard now holds the lock's fence row. {@code WRITE} commits the increment.
 *   <li>Before the transaction's first statement: {@code ENTER} acquires and enters the section
 *       like {@code ROUND}, then begins the fenced increment. The lease check at {@code begin()}
 *       passes, and the client stops right after it, before the fence guard runs ({@code
 *       AT_GUARD}), until {@code GO}: what {@link dev.fencedlock.Lease#isValid()} warns of, a
 *       pause between the check and the statement. Then the guard runs, the counter is read and
 *       the increment committed, all as one write.
 * </ul>
 *
 * <p>After the write the client waits up to {@code --loss-wait} for its lease's loss notification
 * before it leaves the section, whatever the write's outcome, so the history says whether {@code
 * onLost} fired. Only the paused scenarios drive this client, and every one of them loses its lease.
 *
 * <p>Arguments: {@code --client <id> --history <file> --wait <duration> --loss-wait <duration>
 * --db-url <jdbc url> --db-user <user>}, then {@code fencedlock.*=value} pairs for the lock client.
 * The database password comes from the environment variable {@code FAULTS_DB_PASSWORD}, so that it
 * never shows in a process list.
 */
public final class PausableClient {
    public static final String PASSWORD_VARIABLE = "FAULTS_DB_PASSWORD";

    private final PrintStream out;
    private final String client;
    private final Duration wait;
    private final Duration lossWait;
    private final LockClient locks;
    private final FaultDatabase database;
    private final HistoryRecorder recorder = new HistoryRecorder();
    private BufferedReader in;
    private Section section;
    private FencedIncrement increment;

    private PausableClient(
            PrintStream out,
            String client,
            Duration wait,
            Duration lossWait,
            LockClient locks,
            FaultDatabase database) {
        this.out = out;
        this.client = client;
        this.wait = wait;
        this.lossWait = lossWait;
        this.locks = locks;
        this.database = database;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        Map<String, String> lockSettings = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--") && i + 1 < args.length) {
                options.put(args[i].substring(2), args[++i]);
            } else if (args[i].startsWith("fencedlock.") && args[i].contains("=")) {
                int eq = args[i].indexOf('=');
                lockSettings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
            } else {
                throw new IllegalArgumentException("unexpected argument '" + args[i] + "'");
            }
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String password = Optional.ofNullable(System.getenv(PASSWORD_VARIABLE)).orElse("");
        Path history = Path.of(required(options, "history"));
        try (FaultDatabase database = FaultDatabase.connect(
                        new DatabaseSettings(required(options, "db-url"), required(options, "db-user"), password));
                LockClient locks = LockClient.create(LockConfig.fromMap(lockSettings))) {
            PausableClient me = new PausableClient(
                    out,
                    required(options, "client"),
                    LockConfig.parseDuration("--wait", required(options, "wait")),
                    LockConfig.parseDuration("--loss-wait", required(options, "loss-wait")),
                    locks,
                    database);
            out.println("READY");
            me.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
            me.recorder.snapshot().writeTo(history);
        }
        out.println("BYE");
        System.exit(0);
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    private void serve(BufferedReader in) throws IOException, InterruptedException {
        this.in = in;
        String line;
        while ((line = in.readLine()) != null) {
            String[] command = line.trim().split(" ");
            switch (command[0]) {
                case "ROUND" -> round(command[1], command[2]);
                case "WRITE" -> write();
                case "ENTER" -> enterBeforeGuard(command[1], command[2]);
                case "EXIT" -> {
                    return;
                }
                default -> out.println("ERROR unknown command '" + line + "'");
            }
        }
    }

    private void round(String lock, String counter) throws InterruptedException {
        if (!enter(lock)) {
            return;
        }
        increment = section.beginFenced(database.entityManagerFactory(), counter);
        out.println("HOLDING " + section.lease().token() + " " + increment.readValue());
    }

    private boolean enter(String lock) throws InterruptedException {
        Optional<Section> entered = Section.enter(locks.lock(lock), Acquisition.renewing(wait), client, recorder);
        if (entered.isEmpty()) {
            out.println("NOT_GRANTED");
            return false;
        }
        section = entered.get();
        return true;
    }

    private void write() throws InterruptedException {
        if (section == null || increment == null) {
            out.println("ERROR no transaction is open");
            return;
        }
        FencedWrite write;
        try {
            write = section.commit(increment);
        } finally {
            increment.close();
            increment = null;
        }
        leave(write);
    }

    private void enterBeforeGuard(String lock, String counter) throws InterruptedException {
        if (!enter(lock)) {
            return;
        }
        out.println("HOLDING " + section.lease().token());
        Lease pausing = new PauseAfterCheck(section.lease(), this::awaitGo);
        leave(section.increment(database.entityManagerFactory(), counter, pausing));
    }

    /** Says {@code AT_GUARD} and waits for the test's {@code GO}; the test stops the process meanwhile. */
    private void awaitGo() {
        out.println("AT_GUARD");
        try {
            String line = in.readLine();
            if (!"GO".equals(line)) {
                throw new IllegalStateException("expected GO at the pause point, got '" + line + "'");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("standard input failed at the pause point", e);
        }
    }

    private void leave(FencedWrite write) throws InterruptedException {
        out.println("WROTE " + write.outcome() + " " + write.detail());
        boolean lost = section.awaitLoss(lossWait);
        section.close();
        section = null;
        out.println("DONE lost=" + lost);
    }
}
