import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises a JFR recording of one benchmark fork: CPU samples and sampled allocation weight,
 * each by the first frame of a package of interest (fencedlock, Curator, ZooKeeper, the JDK's
 * concurrency classes), and CPU samples by top frame.
 *
 * <pre>java JfrSummary.java recording.jfr [top N]</pre>
 */
public class JfrSummary {
    private static final String[] OWNERS = {
        "dev.fencedlock.", "org.apache.curator.", "org.apache.zookeeper.", "org.openjdk.jmh.",
    };

    public static void main(String[] args) throws Exception {
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
        Map<String, Long> cpuByOwner = new HashMap<>();
        Map<String, Long> cpuByTop = new HashMap<>();
        Map<String, Long> cpuByFencedFrame = new HashMap<>();
        Map<String, Long> allocByOwner = new HashMap<>();
        Map<String, Long> allocByClass = new HashMap<>();
        Map<String, Long> allocByFencedFrame = new HashMap<>();
        long samples = 0;
        long allocTotal = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(Path.of(args[0]))) {
            String type = event.getEventType().getName();
            RecordedStackTrace stack = event.getStackTrace();
            if (stack == null) {
                continue;
            }
            if (type.equals("jdk.ExecutionSample")) {
                samples++;
                cpuByOwner.merge(owner(stack), 1L, Long::sum);
                cpuByTop.merge(frame(stack.getFrames().get(0)), 1L, Long::sum);
                String fenced = firstFencedFrame(stack);
                if (fenced != null) {
                    cpuByFencedFrame.merge(fenced, 1L, Long::sum);
                }
            } else if (type.equals("jdk.ObjectAllocationSample")) {
                long weight = event.getLong("weight");
                allocTotal += weight;
                allocByOwner.merge(owner(stack), weight, Long::sum);
                allocByClass.merge(event.getClass("objectClass").getName(), weight, Long::sum);
                String fenced = firstFencedFrame(stack);
                if (fenced != null) {
                    allocByFencedFrame.merge(fenced, weight, Long::sum);
                }
            }
        }
        print("CPU samples by the first frame of a known library (" + samples + " samples)", cpuByOwner, samples, top);
        print("CPU samples by top frame", cpuByTop, samples, top);
        print("CPU samples under each fencedlock method (innermost fencedlock frame)", cpuByFencedFrame, samples, top);
        print("allocation weight by the first frame of a known library (" + allocTotal / 1024 / 1024 + " MiB sampled)",
                allocByOwner, allocTotal, top);
        print("allocation weight by class", allocByClass, allocTotal, top);
        print("allocation weight under each fencedlock method (innermost fencedlock frame)", allocByFencedFrame,
                allocTotal, top);
    }

    /** The innermost frame's library, as the first frame from the top that belongs to one. */
    private static String owner(RecordedStackTrace stack) {
        for (RecordedFrame frame : stack.getFrames()) {
            String type = frame.getMethod().getType().getName();
            for (String owner : OWNERS) {
                if (type.startsWith(owner)) {
                    return owner + "*";
                }
            }
        }
        return "(jdk or other only)";
    }

    private static String firstFencedFrame(RecordedStackTrace stack) {
        for (RecordedFrame frame : stack.getFrames()) {
            if (frame.getMethod().getType().getName().startsWith("dev.fencedlock.")
                    && !frame.getMethod().getType().getName().startsWith("dev.fencedlock.benchmarks.")) {
                return frame(frame);
            }
        }
        return null;
    }

    private static String frame(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + frame.getMethod().getName();
    }

    private static void print(String title, Map<String, Long> counts, long total, int top) {
        System.out.println();
        System.out.println("== " + title);
        List<Map.Entry<String, Long>> entries = new ArrayList<>(counts.entrySet());
        entries.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        for (Map.Entry<String, Long> e : entries.subList(0, Math.min(top, entries.size()))) {
            System.out.printf("%6.1f%%  %s%n", 100.0 * e.getValue() / Math.max(1, total), e.getKey());
        }
    }
}
