//! Output of rigid-body scenes: positions and orientations per step as CSV ([`CsvWriter`]), a
//! ParaView time series of bodies, contacts and static shapes ([`vtk::VtkSeries`]), and single
//! frames as VTK XML PolyData files (`.vtp`, one point per body, [`write_vtp`]) with a ParaView
//! collection (`.pvd`, [`write_pvd`]) that strings such frames in time.
//!
//! The single-frame files hold, per body: the centre (points), and as point data the unit
//! quaternion (scalar first), the translational velocity, the angular velocity in the body frame,
//! the shape kind (0 sphere, 1 box, 2 capsule), a bounding radius and the box half extents or the
//! capsule half length. In ParaView, a `Glyph` filter (sphere source, scale by `radius`) draws a
//! sphere pile.
//!
//! A whole run, with contacts, solver reports and timings, goes to one HDF5 file
//! ([`record::RunRecord`]).

pub mod record;
pub mod vtk;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::MechanicsError;

/// The state of one body in a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyFrame {
    /// Centre of mass in the inertial frame.
    pub position: [f64; 3],
    /// Orientation, unit quaternion `(p0, p1, p2, p3)`, scalar first.
    pub orientation: [f64; 4],
    /// Velocity of the centre (inertial frame).
    pub velocity: [f64; 3],
    /// Angular velocity (body frame).
    pub angular_velocity: [f64; 3],
    /// Shape kind: 0 sphere, 1 box, 2 capsule, 4 cylinder, 5 convex hull.
    pub shape_kind: u8,
    /// Radius of a sphere or capsule; half diagonal of a box.
    pub radius: f64,
    /// Box half extents, or `(0, 0, half length)` for a capsule, zero for a sphere.
    pub extents: [f64; 3],
}

fn io_error(path: &Path, error: std::io::Error) -> MechanicsError {
    MechanicsError::Io { path: path.to_path_buf(), source: error }
}

/// Writes the CSV of a run: a header line `step,t,body,x,y,z,p0,p1,p2,p3,vx,vy,vz,wx,wy,wz`,
/// then one line per body and frame (numbers in Rust's shortest round-trip form, so the file
/// reads back bit for bit).
#[derive(Debug)]
pub struct CsvWriter {
    out: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    line: String,
}

impl CsvWriter {
    /// Creates the file and writes the header.
    ///
    /// # Errors
    /// [`MechanicsError::Io`] when the file cannot be written.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, MechanicsError> {
        let path = path.as_ref().to_path_buf();
        let file = std::fs::File::create(&path).map_err(|e| io_error(&path, e))?;
        let mut out = std::io::BufWriter::new(file);
        out.write_all(b"step,t,body,x,y,z,p0,p1,p2,p3,vx,vy,vz,wx,wy,wz\n").map_err(|e| io_error(&path, e))?;
        Ok(Self { out, path, line: String::new() })
    }

    /// Appends the bodies of one frame.
    ///
    /// # Errors
    /// As [`CsvWriter::create`].
    pub fn write_frame(&mut self, step: usize, t: f64, bodies: &[BodyFrame]) -> Result<(), MechanicsError> {
        for (i, b) in bodies.iter().enumerate() {
            self.line.clear();
            let _ = write!(self.line, "{step},{t:?},{i}");
            for x in b.position.iter().chain(&b.orientation).chain(&b.velocity).chain(&b.angular_velocity) {
                let _ = write!(self.line, ",{x:?}");
            }
            self.line.push('\n');
            self.out.write_all(self.line.as_bytes()).map_err(|e| io_error(&self.path, e))?;
        }
        Ok(())
    }

    /// Flushes the file.
    ///
    /// # Errors
    /// As [`CsvWriter::create`].
    pub fn finish(mut self) -> Result<(), MechanicsError> {
        self.out.flush().map_err(|e| io_error(&self.path, e))
    }
}

/// Writes one frame as a VTK XML PolyData file (ASCII), one vertex per body.
///
/// # Errors
/// [`MechanicsError::Io`] when the file cannot be written.
pub fn write_vtp(path: impl AsRef<Path>, bodies: &[BodyFrame]) -> Result<(), MechanicsError> {
    let path = path.as_ref();
    let n = bodies.len();
    let mut s = String::with_capacity(256 + n * 200);
    s.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n");
    let _ = writeln!(s, "<PolyData>\n<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"{n}\">");
    s.push_str("<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for b in bodies {
        let _ = writeln!(s, "{:?} {:?} {:?}", b.position[0], b.position[1], b.position[2]);
    }
    s.push_str("</DataArray>\n</Points>\n<PointData Scalars=\"radius\">\n");
    let array = |s: &mut String, name: &str, components: usize, values: &mut dyn Iterator<Item = f64>| {
        let _ = writeln!(
            s,
            "<DataArray type=\"Float64\" Name=\"{name}\" NumberOfComponents=\"{components}\" format=\"ascii\">"
        );
        for (k, v) in values.enumerate() {
            let _ = write!(s, "{v:?}");
            s.push(if (k + 1) % components == 0 { '\n' } else { ' ' });
        }
        s.push_str("</DataArray>\n");
    };
    array(&mut s, "radius", 1, &mut bodies.iter().map(|b| b.radius));
    array(&mut s, "orientation", 4, &mut bodies.iter().flat_map(|b| b.orientation));
    array(&mut s, "velocity", 3, &mut bodies.iter().flat_map(|b| b.velocity));
    array(&mut s, "angular_velocity", 3, &mut bodies.iter().flat_map(|b| b.angular_velocity));
    array(&mut s, "extents", 3, &mut bodies.iter().flat_map(|b| b.extents));
    array(&mut s, "shape", 1, &mut bodies.iter().map(|b| f64::from(b.shape_kind)));
    s.push_str("</PointData>\n<Verts>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
    for i in 0..n {
        let _ = write!(s, "{i} ");
    }
    s.push_str("\n</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
    for i in 0..n {
        let _ = write!(s, "{} ", i + 1);
    }
    s.push_str("\n</DataArray>\n</Verts>\n</Piece>\n</PolyData>\n</VTKFile>\n");
    std::fs::write(path, s).map_err(|e| io_error(path, e))
}

/// Writes a ParaView collection (`.pvd`) listing `(time, file)` frames (file names relative to
/// the collection's folder).
///
/// # Errors
/// [`MechanicsError::Io`] when the file cannot be written.
pub fn write_pvd(path: impl AsRef<Path>, frames: &[(f64, String)]) -> Result<(), MechanicsError> {
    let path = path.as_ref();
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n<Collection>\n",
    );
    for (t, file) in frames {
        let _ = writeln!(s, "<DataSet timestep=\"{t:?}\" group=\"\" part=\"0\" file=\"{file}\"/>");
    }
    s.push_str("</Collection>\n</VTKFile>\n");
    std::fs::write(path, s).map_err(|e| io_error(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(i: usize) -> BodyFrame {
        let x = i as f64;
        BodyFrame {
            position: [x, 0.5 * x, -x],
            orientation: [1.0, 0.0, 0.0, 0.0],
            velocity: [0.1, 0.2, 0.3],
            angular_velocity: [0.0, 0.0, 1.0 / 3.0],
            shape_kind: 0,
            radius: 0.05,
            extents: [0.0; 3],
        }
    }

    #[test]
    fn csv_reads_back_bit_for_bit() -> Result<(), MechanicsError> {
        let dir = tempfile::tempdir().map_err(|e| io_error(Path::new("tempdir"), e))?;
        let path = dir.path().join("run.csv");
        let mut w = CsvWriter::create(&path)?;
        let bodies: Vec<BodyFrame> = (0..3).map(body).collect();
        w.write_frame(0, 0.0, &bodies)?;
        w.write_frame(1, 1e-3, &bodies)?;
        w.finish()?;
        let text = std::fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7);
        let fields: Vec<f64> = lines[6].split(',').map(|f| f.parse().expect("a number")).collect();
        assert_eq!(fields.len(), 16);
        assert_eq!(fields[15].to_bits(), (1.0f64 / 3.0).to_bits());
        assert_eq!(fields[3].to_bits(), 2.0f64.to_bits());
        Ok(())
    }

    #[test]
    fn vtp_and_pvd_are_well_formed() -> Result<(), MechanicsError> {
        let dir = tempfile::tempdir().map_err(|e| io_error(Path::new("tempdir"), e))?;
        let bodies: Vec<BodyFrame> = (0..4).map(body).collect();
        write_vtp(dir.path().join("f0.vtp"), &bodies)?;
        write_pvd(dir.path().join("run.pvd"), &[(0.0, "f0.vtp".into())])?;
        let text = std::fs::read_to_string(dir.path().join("f0.vtp")).map_err(|e| io_error(Path::new("f0"), e))?;
        assert!(text.contains("NumberOfPoints=\"4\""));
        assert_eq!(text.matches("<DataArray").count(), text.matches("</DataArray>").count());
        // Four points of three coordinates between the Points tags.
        let points = text.split("<Points>").nth(1).and_then(|p| p.split("</Points>").next()).expect("points");
        let numbers = points.lines().filter(|l| !l.contains('<')).flat_map(|l| l.split_whitespace()).count();
        assert_eq!(numbers, 12);
        assert!(std::fs::read_to_string(dir.path().join("run.pvd")).is_ok_and(|p| p.contains("file=\"f0.vtp\"")));
        Ok(())
    }

    #[test]
    fn unwritable_paths_are_typed_errors() {
        let bad = Path::new("/nonexistent-folder/x.vtp");
        assert!(matches!(write_vtp(bad, &[body(0)]), Err(MechanicsError::Io { .. })));
        assert!(CsvWriter::create("/nonexistent-folder/x.csv").is_err());
    }
}
