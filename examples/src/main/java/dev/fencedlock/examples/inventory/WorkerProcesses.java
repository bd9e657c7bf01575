package dev.fencedlock.examples.inventory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs the workers as separate JVMs against one shared database and lock backend, as a real
 * deployment would, and collects each process's tally from its last output line.
 */
final class WorkerProcesses {
    static final String RESULT_PREFIX = "WORKER-RESULT ";
    /** The line a worker process prints once set up; it then waits for {@link #START} on its input. */
    static final String READY = "WORKER-READY";
    /** The line the parent sends every worker process once all of them are ready. */
    static final String START = "START";

    private static final long READY_TIMEOUT_MINUTES = 5;

    private static final Set<String> ORDER_OUTCOMES =
            Arrays.stream(OrderOutcome.values()).map(Enum::name).collect(Collectors.toSet());

    /** What a process runs between its set-up and its workers. */
    @FunctionalInterface
    interface StartGate {
        void pass() throws IOException;
    }

    /**
     * In a worker process: says it is set up ({@link #READY} on {@code out}) and waits until the
     * parent sends {@link #START}, or closes the input.
     */
    static void readyAndAwaitStart(PrintStream out) throws IOException {
        out.println(READY);
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.trim().equals(START)) {
            // nothing else is sent
        }
    }

    private WorkerProcesses() {}

    /**
     * Starts the processes, their sales calling the shipping service at {@code shipping}, waits for
     * all of them and adds their tallies to {@code tally}.
     */
    static void runAll(RunSettings settings, List<String> lockArgs, String jdbcUrl, URI shipping, WorkerTally tally)
            throws IOException, InterruptedException {
        List<Process> processes = new ArrayList<>();
        List<CapturedOutput> outputs = new ArrayList<>();
        int offset = 0;
        try {
            for (int p = 0; p < settings.processes(); p++) {
                int workersHere = settings.workers() / settings.processes()
                        + (p < settings.workers() % settings.processes() ? 1 : 0);
                List<String> command = javaCommand(InventoryApp.class.getName());
                command.addAll(settings.workerProcessArgs(jdbcUrl, shipping, offset, workersHere));
                command.addAll(lockArgs);
                Process process = new ProcessBuilder(command)
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                processes.add(process);
                outputs.add(CapturedOutput.of(process));
                offset += workersHere;
            }
            startTogether(processes, outputs);
            for (int p = 0; p < processes.size(); p++) {
                Process process = processes.get(p);
                if (!process.waitFor(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("Worker process " + p + " did not finish within 10 minutes");
                }
                parseResult(p, process.exitValue(), outputs.get(p).await(), tally);
            }
        } finally {
            for (Process process : processes) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * Waits until every process is set up (its clients connected, its broken-lock order done), then
     * lets all of them start their workers at once. A process that ended before it was ready is
     * reported with its output when its result is read.
     */
    private static void startTogether(List<Process> processes, List<CapturedOutput> outputs)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(READY_TIMEOUT_MINUTES);
        for (int p = 0; p < processes.size(); p++) {
            while (!outputs.get(p).ready().await(100, TimeUnit.MILLISECONDS)) {
                if (!processes.get(p).isAlive()) {
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(
                            "Worker process " + p + " was not set up within " + READY_TIMEOUT_MINUTES + " minutes: "
                                    + outputs.get(p).text());
                }
            }
        }
        for (Process process : processes) {
            if (process.isAlive()) {
                try (Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
                    in.write(START + "\n");
                } catch (IOException e) {
                    // it ended meanwhile: its exit code and output say why
                }
            }
        }
    }

    /**
     * The command that runs {@code mainClass} in a new JVM with this JVM's class path and {@code
     * fencedlock.*} system properties; a mutable list, for the arguments to follow.
     */
    static List<String> javaCommand(String mainClass) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        System.getProperties().stringPropertyNames().stream()
                .filter(name -> name.startsWith("fencedlock."))
                .forEach(name -> command.add("-D" + name + "=" + System.getProperty(name)));
        command.add(mainClass);
        return command;
    }

    /** Everything a process writes to its standard output, read on a thread of its own. */
    private record CapturedOutput(Thread reader, StringBuffer text, CountDownLatch ready) {
        static CapturedOutput of(Process process) {
            StringBuffer text = new StringBuffer();
            CountDownLatch ready = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (line.equals(READY)) {
                            ready.countDown();
                            continue;
                        }
                        text.append(line).append('\n');
                    }
                } catch (IOException e) {
                    text.append("(output unreadable: ").append(e).append(")\n");
                }
            });
            reader.setDaemon(true);
            reader.start();
            return new CapturedOutput(reader, text, ready);
        }

        /** The whole output, once the process has closed its end. */
        String await() throws InterruptedException {
            reader.join(TimeUnit.SECONDS.toMillis(30));
            return text.toString();
        }
    }

    private static void parseResult(int index, int exitCode, String output, WorkerTally tally) {
        String result = output.lines()
                .filter(line -> line.startsWith(RESULT_PREFIX))
                .findFirst()
                .orElse(null);
        if (exitCode != 0 || result == null) {
            throw new IllegalStateException("Worker process " + index + " failed (exit " + exitCode + "): " + output);
        }
        Map<OrderOutcome, Long> counts = new EnumMap<>(OrderOutcome.class);
        for (String field : result.substring(RESULT_PREFIX.length()).trim().split(" ")) {
            String[] pair = field.split("=", 2);
            if (pair[0].equals("waits")) {
                if (!pair[1].isEmpty()) {
                    tally.waits()
                            .recordAll(Arrays.stream(pair[1].split(","))
                                    .mapToLong(Long::parseLong)
                                    .toArray());
                }
            } else if (ORDER_OUTCOMES.contains(pair[0])) {
                counts.put(OrderOutcome.valueOf(pair[0]), Long.parseLong(pair[1]));
            } else {
                tally.addCount(pair[0], Long.parseLong(pair[1]));
            }
        }
        tally.add(counts);
    }

    /** The line a worker process prints last, carrying its tally. */
    static String resultLine(WorkerTally tally) {
        StringBuilder line = new StringBuilder(RESULT_PREFIX);
        tally.asMap()
                .forEach((outcome, count) ->
                        line.append(outcome.name()).append('=').append(count).append(' '));
        tally.otherCounts()
                .forEach((name, count) ->
                        line.append(name).append('=').append(count).append(' '));
        line.append("waits=");
        long[] waits = tally.waits().samples();
        for (int i = 0; i < waits.length; i++) {
            line.append(i == 0 ? "" : ",").append(waits[i]);
        }
        return line.toString();
    }
}
