/* dwarf-floor: the least a DWARF layout reader built on libdw can cost, for bench/side-by-side.
 *
 *   dwarf-floor open FILE...   open each object as abidiff-uapi does (libdwfl, offline, with the
 *                              relocations of a .o applied), and nothing else
 *   dwarf-floor walk FILE...   also visit every DIE of every unit (dwarf_child, dwarf_siblingof)
 *                              and read what any layout reader must: the tag, the name, the byte
 *                              size, the member offset and the type reference
 *
 * It builds no model, compares nothing and prints one line (the DIE count and a checksum, so
 * that the reads cannot be optimized away). abidiff-uapi diff does all of this for both files,
 * and more: its CPU time minus this one's is what its own code costs.
 * Exit 0, or 2 with a one-line reason. */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long dies, checksum;

static void walk(Dwarf_Die *die)
{
	do {
		Dwarf_Attribute attr;
		Dwarf_Word word;
		Dwarf_Die child, type;
		const char *name = dwarf_diename(die);

		dies++;
		checksum += (unsigned long)dwarf_tag(die) + (name ? (unsigned char)name[0] : 0);
		if (dwarf_attr(die, DW_AT_byte_size, &attr) && dwarf_formudata(&attr, &word) == 0)
			checksum += word;
		if (dwarf_attr(die, DW_AT_data_member_location, &attr) && dwarf_formudata(&attr, &word) == 0)
			checksum += word;
		if (dwarf_attr(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, &type))
			checksum += dwarf_dieoffset(&type);
		if (dwarf_child(die, &child) == 0)
			walk(&child);
	} while (dwarf_siblingof(die, die) == 0);
}

int main(int argc, char **argv)
{
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	int do_walk;

	if (argc < 3 || (strcmp(argv[1], "open") && strcmp(argv[1], "walk"))) {
		fprintf(stderr, "usage: dwarf-floor open|walk FILE...\n");
		return 2;
	}
	do_walk = !strcmp(argv[1], "walk");
	for (int i = 2; i < argc; i++) {
		Dwfl *dwfl = dwfl_begin(&callbacks);
		int fd = open(argv[i], O_RDONLY);
		Dwfl_Module *mod;
		Dwarf_Addr bias;
		Dwarf *dw;

		if (!dwfl || fd < 0) {
			fprintf(stderr, "dwarf-floor: %s: cannot open\n", argv[i]);
			return 2;
		}
		mod = dwfl_report_offline(dwfl, argv[i], argv[i], fd);     /* takes fd */
		dwfl_report_end(dwfl, NULL, NULL);
		dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
		if (!dw) {
			fprintf(stderr, "dwarf-floor: %s: no DWARF (%s)\n", argv[i], dwfl_errmsg(-1));
			return 2;
		}
		if (do_walk) {
			Dwarf_Off off = 0, next;
			size_t header;

			while (dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
				Dwarf_Die cu, first;

				if (dwarf_offdie(dw, off + header, &cu) && dwarf_child(&cu, &first) == 0)
					walk(&first);
				off = next;
			}
		}
		dwfl_end(dwfl);
	}
	printf("%lu DIEs, checksum %lu\n", dies, checksum);
	return 0;
}
