package io.valueguard.benchmark;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import javax.imageio.ImageIO;

/**
 * The cost curve of {@link ScaleBenchmark} as a PNG: claims/s of the plain table and of ValueGuard against the
 * keyspace (left), and their ratio with the 0.6 goal (right), keys on a logarithmic axis. Drawn with the JDK alone, so
 * that the benchmark needs nothing else to plot.
 */
final class CostCurve {

	private static final int PANEL_WIDTH = 520;

	private static final int HEIGHT = 380;

	private static final int MARGIN_LEFT = 80;

	private static final int MARGIN_RIGHT = 20;

	private static final int MARGIN_TOP = 40;

	private static final int MARGIN_BOTTOM = 60;

	private static final Color TABLE = new Color(0x1f77b4);

	private static final Color VALUEGUARD = new Color(0xd62728);

	private CostCurve() {
	}

	/** One point of the curve: a keyspace and the claims/s of either application. */
	record Rates(int keys, double table, double valueGuard) {

		double ratio() {
			return this.valueGuard / this.table;
		}

	}

	static void write(List<Rates> points, Path png) throws IOException {
		System.setProperty("java.awt.headless", "true");
		BufferedImage image = new BufferedImage(PANEL_WIDTH * 2, HEIGHT, BufferedImage.TYPE_INT_RGB);
		Graphics2D graphics = image.createGraphics();
		graphics.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
		graphics.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
		graphics.setColor(Color.WHITE);
		graphics.fillRect(0, 0, image.getWidth(), image.getHeight());
		graphics.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
		double maxRate = points.stream()
			.mapToDouble((point) -> Math.max(point.table(), point.valueGuard()))
			.max()
			.orElse(1);
		Panel rates = new Panel(graphics, 0, points, niceCeiling(maxRate));
		rates.frame("Claims/s, one instance, exactly-once", "%,.0f");
		rates.line(Rates::table, TABLE, "plain table", 0);
		rates.line(Rates::valueGuard, VALUEGUARD, "ValueGuard", 1);
		Panel ratios = new Panel(graphics, PANEL_WIDTH, points, 1.0);
		ratios.frame("ValueGuard / plain table", "%.1f");
		ratios.goal(0.6);
		ratios.line(Rates::ratio, VALUEGUARD, "ratio", 0);
		graphics.dispose();
		ImageIO.write(image, "png", png.toFile());
	}

	/** A round number at or above {@code value} for the top of an axis: 1, 2 or 5 times a power of ten. */
	static double niceCeiling(double value) {
		double power = Math.pow(10, Math.floor(Math.log10(value)));
		for (double step : new double[] { 1, 2, 5, 10 }) {
			if (step * power >= value) {
				return step * power;
			}
		}
		return 10 * power;
	}

	/** One chart: keys on a log axis from the smallest keyspace to the largest, {@code 0..top} upwards. */
	private record Panel(Graphics2D graphics, int left, List<Rates> points, double top) {

		private double minKeys() {
			return this.points.stream().mapToDouble((point) -> point.keys()).min().orElse(1);
		}

		private double maxKeys() {
			return this.points.stream().mapToDouble((point) -> point.keys()).max().orElse(10);
		}

		int x(double keys) {
			double span = Math.log10(maxKeys()) - Math.log10(minKeys());
			double share = (span > 0) ? (Math.log10(keys) - Math.log10(minKeys())) / span : 0.5;
			// a tenth of the width free at either end, so that the first and last points are not on the frame
			int width = PANEL_WIDTH - MARGIN_LEFT - MARGIN_RIGHT;
			return this.left + MARGIN_LEFT + (int) Math.round(width * (0.1 + 0.8 * share));
		}

		int y(double value) {
			int height = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
			return MARGIN_TOP + height - (int) Math.round(height * value / this.top);
		}

		void frame(String title, String tickFormat) {
			Graphics2D g = this.graphics;
			g.setColor(Color.BLACK);
			g.drawString(title, this.left + MARGIN_LEFT, MARGIN_TOP - 15);
			for (int tick = 0; tick <= 5; tick++) {
				double value = this.top * tick / 5;
				g.setColor(new Color(0xdddddd));
				g.drawLine(this.left + MARGIN_LEFT + 1, y(value), this.left + PANEL_WIDTH - MARGIN_RIGHT - 1, y(value));
				g.setColor(Color.BLACK);
				String label = String.format(Locale.ROOT, tickFormat, value);
				g.drawString(label, this.left + MARGIN_LEFT - 8 - g.getFontMetrics().stringWidth(label), y(value) + 4);
			}
			// after the grid, whose first and last lines would cover it
			g.drawRect(this.left + MARGIN_LEFT, MARGIN_TOP, PANEL_WIDTH - MARGIN_LEFT - MARGIN_RIGHT,
					HEIGHT - MARGIN_TOP - MARGIN_BOTTOM);
			for (Rates point : this.points) {
				String label = keysLabel(point.keys());
				int x = x(point.keys());
				g.drawLine(x, HEIGHT - MARGIN_BOTTOM, x, HEIGHT - MARGIN_BOTTOM + 4);
				g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, HEIGHT - MARGIN_BOTTOM + 18);
			}
			String axis = "keys (claims: twice as many; values: half as many)";
			g.drawString(axis, this.left + (PANEL_WIDTH + MARGIN_LEFT - MARGIN_RIGHT - g.getFontMetrics().stringWidth(axis)) / 2,
					HEIGHT - 15);
		}

		void goal(double value) {
			Graphics2D g = this.graphics;
			g.setColor(Color.GRAY);
			g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] { 6, 4 }, 0));
			g.drawLine(this.left + MARGIN_LEFT + 1, y(value), this.left + PANEL_WIDTH - MARGIN_RIGHT - 1, y(value));
			g.setStroke(new BasicStroke(1));
			g.drawString("goal " + value, this.left + PANEL_WIDTH - MARGIN_RIGHT - 60, y(value) - 5);
		}

		/** A line through every point, each point labelled with its value, and the line's name in the legend. */
		void line(ToDoubleFunction<Rates> of, Color color, String name, int legendRow) {
			Graphics2D g = this.graphics;
			g.setColor(color);
			g.setStroke(new BasicStroke(2));
			Integer lastX = null;
			Integer lastY = null;
			for (Rates point : this.points) {
				double value = of.applyAsDouble(point);
				int x = x(point.keys());
				int y = y(value);
				if (lastX != null) {
					g.drawLine(lastX, lastY, x, y);
				}
				g.fillOval(x - 4, y - 4, 8, 8);
				String label = (this.top <= 1) ? String.format(Locale.ROOT, "%.2f", value)
						: String.format(Locale.ROOT, "%,.0f", value);
				g.drawString(label, x + 6, y - 6);
				lastX = x;
				lastY = y;
			}
			g.setStroke(new BasicStroke(1));
			int legendY = MARGIN_TOP + 16 + 16 * legendRow;
			int legendX = this.left + PANEL_WIDTH - MARGIN_RIGHT - 110;
			g.fillRect(legendX, legendY - 8, 14, 4);
			g.drawString(name, legendX + 20, legendY - 2);
		}

	}

	private static String keysLabel(int keys) {
		return (keys >= 1_000_000 && keys % 1_000_000 == 0) ? (keys / 1_000_000) + "M"
				: (keys >= 1_000 && keys % 1_000 == 0) ? (keys / 1_000) + "k" : Integer.toString(keys);
	}

}
