package dev.sluice.loadtest.overhead;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Bytes a server JVM has allocated on its heap, all threads together, since it started: the
 * {@code TotalThreadAllocatedBytes} attribute of its {@code java.lang:type=Threading} bean (the
 * JVM's per-thread allocation counters summed, threads that have ended included), read over the
 * JVM's local management agent, which the attach API starts on demand. Nothing is added to the
 * server's command line and no port is opened; a reading costs the server a few kilobytes, against
 * the tens of kilobytes each of the round's many thousand requests allocates.
 *
 * <p>Allocation counts what a request costs the garbage collector and explains much of its CPU, and
 * unlike CPU time it hardly moves with the machine's load: the same request allocates the same
 * bytes on a busy machine.
 */
final class ServerAllocation implements AutoCloseable {

  private static final String ATTRIBUTE = "TotalThreadAllocatedBytes";

  private final Map<Long, JMXConnector> connectors = new HashMap<>();
  private final Map<Long, MBeanServerConnection> connections = new HashMap<>();

  /**
   * The server's allocated bytes so far, or -1 when they cannot be read (the attach API refused,
   * the JVM is gone, or it does not count allocation); the run then reports no allocation figure
   * rather than failing.
   */
  long bytes(long pid) {
    try {
      MBeanServerConnection connection = connection(pid);
      Object value =
          connection.getAttribute(new ObjectName(ManagementFactory.THREAD_MXBEAN_NAME), ATTRIBUTE);
      return value instanceof Long bytes ? bytes : -1;
    } catch (IOException | JMException | AttachNotSupportedException | RuntimeException e) {
      forget(pid);
      return -1;
    }
  }

  // BanJNDI: the address is the local connector of a JVM this load test started itself (from the
  // attach API), not user input; nothing else is looked up
  @SuppressWarnings("BanJNDI")
  private MBeanServerConnection connection(long pid)
      throws IOException, AttachNotSupportedException {
    MBeanServerConnection known = connections.get(pid);
    if (known != null) {
      return known;
    }
    VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
    String address;
    try {
      address = vm.startLocalManagementAgent();
    } finally {
      vm.detach();
    }
    JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
    MBeanServerConnection connection = connector.getMBeanServerConnection();
    connectors.put(pid, connector);
    connections.put(pid, connection);
    return connection;
  }

  private void forget(long pid) {
    connections.remove(pid);
    JMXConnector connector = connectors.remove(pid);
    if (connector != null) {
      try {
        connector.close();
      } catch (IOException ignored) {
        // the server is gone or the connection broken: nothing left to close
      }
    }
  }

  @Override
  public void close() {
    for (Long pid : Map.copyOf(connectors).keySet()) {
      forget(pid);
    }
  }

  /** Bytes per request between two readings; NaN when either reading failed or nothing ran. */
  static double perRequest(long before, long after, long requests) {
    return before < 0 || after < 0 || requests <= 0 || after < before
        ? Double.NaN
        : (double) (after - before) / requests;
  }
}
